;; task: Break down the issues whose status is exactly "open" by issue type. Return a hash from type name (task, bug, feature, epic, chore) to count, leaving out types with no open issue.
;; expect: {"task":9,"bug":5,"epic":3,"chore":3,"feature":2}
(define items (hash-ref (payload (issue.list (hash "status" "open"))) "items"))
(define counts (make-hash))
(for ([i items])
  (hash-update! counts (hash-ref i "issue_type") add1 0))
counts
