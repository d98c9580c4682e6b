;; task: How much ready work is there of each kind? Return a hash from issue type to the number of ready issues of that type (types with no ready issue left out).
;; expect: {"bug":4,"chore":2,"epic":2,"feature":1,"task":4}
(define counts (make-hash))
(define e (issue.ready (hash)))
(for ([i (hash-ref (payload e) "items")])
  (hash-update! counts (hash-ref i "issueType") add1 0))
counts
