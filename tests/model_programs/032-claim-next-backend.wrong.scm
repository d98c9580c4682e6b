;; task: You are agent.b and only do backend work. Claim the next ready issue labelled "backend". Return the claimed issue's id as a string, or "none" if nothing was claimed.
;; mistake: the filter key is written "label" (singular) instead of "labels".
;; fix: the filter has no key "label"; it is "labels" (a list of strings); the error must list the filter's keys.
(define e (issue.claim_next (hash "assignee" "agent.b"
                                  "filter" (hash "label" (list "backend")))))
(define p (payload e))
(if (and (accepted? e) (hash-ref p "claimed" #f))
    (hash-ref* p "issue" "id")
    "none")
