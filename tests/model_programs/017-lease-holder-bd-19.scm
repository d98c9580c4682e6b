;; task: Who currently holds the lease on bd-19? Return the lease holder's name as a string (or "none" if there is no lease).
;; expect: "agent.ops"
(define e (issue.show (hash "id" "bd-19")))
(define p (payload e))
(define holder
  (or (hash-ref* p "issue" "lease" "owner")
      (hash-ref* p "lease" "owner")
      (hash-ref* p "issue" "assignee")))
(if holder holder "none")
