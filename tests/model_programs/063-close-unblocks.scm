;; task: The checkout flow design (bd-10) is finished: close it with the reason "design approved". Then list the ready issues labelled "checkout". Return their ids as a list of strings, in the order issue.ready gives them.
;; expect: ["bd-1","bd-11","bd-18"]
;; after: {"bd-10": {"status": "closed", "close_reason": "design approved"}}
(define closed (issue.close (hash "id" "bd-10" "reason" "design approved")))
(unless (accepted? closed)
  (displayln (result-class closed)))
(define checkout (issue.ready (hash "filter" (hash "labels" (list "checkout")))))
(map (lambda (i) (hash-ref i "id")) (hash-ref (payload checkout) "issues"))
