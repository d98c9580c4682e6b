;; task: You are agent.b and you fix bugs only. Claim the next ready bug and return its id, or "none" if nothing was claimed.
;; expect: "bd-10"
;; after: {"bd-10": {"status": "in_progress", "assignee": "agent.b"}}
(define e (issue.claim_next (hash "assignee" "agent.b"
                                  "filter" (hash "types" (list "bug")))))
(if (and (accepted? e) (hash-ref (payload e) "claimed"))
    (hash-ref* (payload e) "issue" "id")
    "none")
