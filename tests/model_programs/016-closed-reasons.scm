;; task: For every closed issue, why was it closed? Return a hash from issue id to its close reason string.
;; expect: {"bd-14":"list regenerated","bd-5":"guide published"}
(define closed (hash-ref (payload (issue.list (hash "status" "closed"))) "issues"))
(for/fold ([acc (hash)]) ([i closed])
  (hash-set acc (hash-ref i "id") (hash-ref i "close_reason" "")))
