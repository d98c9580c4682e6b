;; task: You are agent.b and only do backend work. Claim the next ready issue labelled "backend". Return the claimed issue's id as a string, or "none" if nothing was claimed.
;; expect: "bd-13"
;; after: {"bd-13": {"status": "in_progress", "assignee": "agent.b"}}
(define e (issue.claim_next (hash "assignee" "agent.b"
                                  "filter" (hash "labels" (list "backend")))))
(define p (payload e))
(if (and (accepted? e) (hash-ref p "claimed" #f))
    (hash-ref* p "issue" "id")
    "none")
