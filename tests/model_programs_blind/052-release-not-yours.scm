;; task: agent.a claims bd-12. Then agent.b tries to release bd-12's lease. Return a hash with "refusal" (the class of agent.b's release if it was refused, else "none") and "assignee" (bd-12's assignee afterwards, from issue.show).
;; expect: {"refusal":"lease_owner_mismatch","assignee":"agent.a"}
;; after: {"bd-12": {"status": "in_progress", "assignee": "agent.a"}}
(issue.claim (hash "id" "bd-12" "assignee" "agent.a"))
(let* ([rel (issue.lease_release (hash "id" "bd-12" "assignee" "agent.b"))]
       [refusal (if (rejected? rel) (result-class rel) "none")]
       [shown (payload (issue.show (hash "id" "bd-12")))])
  (hash "refusal" refusal
        "assignee" (hash-ref* shown "issue" "assignee")))
