;; task: As agent.b, claim issue bd-8 specifically. Return true if the claim was accepted, false otherwise.
;; mistake: names the issue argument "issue_id" instead of "id".
;; fix: issue.claim's argument is called id, not issue_id.
(define e (issue.claim (hash "issue_id" "bd-8" "assignee" "agent.b")))
(accepted? e)
