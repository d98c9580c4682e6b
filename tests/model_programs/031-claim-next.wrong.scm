;; task: You are worker agent.a. Take the next piece of ready work. Return the id of the issue you claimed as a string, or the failure class if the claim was refused.
;; mistake: passes the assignee as a bare string instead of a hash of arguments.
;; fix: host functions take one hash: (issue.claim_next (hash "assignee" "agent.a")), not a positional string.
(define e (issue.claim_next "agent.a"))
(if (accepted? e)
    (hash-ref* (payload e) "issue" "id")
    (result-class e))
