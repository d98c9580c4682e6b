;; task: You are worker agent.a. Take the next piece of ready work. Return the id of the issue you claimed as a string, or the failure class if the claim was refused.
;; expect: "bd-1"
;; after: {"bd-1": {"status": "in_progress", "assignee": "agent.a"}}
(define e (issue.claim_next (hash "assignee" "agent.a")))
(if (accepted? e)
    (hash-ref* (payload e) "issue" "id")
    (result-class e))
