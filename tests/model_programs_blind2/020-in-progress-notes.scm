;; task: Collect the working notes of every in-progress issue. Return a hash from issue id to its notes ("" when it has none).
;; expect: {"bd-14":"Consumer group lag under 2s in staging; batching 500 events per poll.","bd-27":"Handler deployed behind flag card_updater_v2.","bd-36":""}
(define ip (hash-ref (payload (issue.list (hash "status" "in_progress"))) "items"))
(for/hash ([i ip])
  (define id (hash-ref i "id"))
  (define full (hash-ref (payload (issue.show (hash "id" id))) "issue"))
  (values id (hash-ref full "notes" "")))
