;; task: As agent.a, claim the next ready issue and report the lease you got. Return the lease id as a string.
;; expect: "lease1_bd-1_agent.a"
;; after: {"bd-1": {"status": "in_progress", "assignee": "agent.a"}}
(define e (issue.claim_next (hash "assignee" "agent.a")))
(define p (payload e))
(displayln p)
(or (hash-ref* p "lease" "leaseId")
    (hash-ref* p "lease" "lease_id")
    (hash-ref* p "issue" "lease" "lease_id")
    "no lease")
