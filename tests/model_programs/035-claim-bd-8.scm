;; task: As agent.b, claim issue bd-8 specifically. Return true if the claim was accepted, false otherwise.
;; expect: true
;; after: {"bd-8": {"status": "in_progress", "assignee": "agent.b"}}
(define e (issue.claim (hash "id" "bd-8" "assignee" "agent.b")))
(accepted? e)
