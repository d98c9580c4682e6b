;; task: As agent.a, claim the next ready issue, record the note "guarded empty cart", then close it with the reason "fixed". Return a hash {"id": <claimed id>, "closed": <true if the close was accepted>}.
;; mistake: passes the close reason as "close_reason" (the beads field name) instead of the argument "reason".
;; fix: issue.close's argument is called reason, not close_reason (close_reason is only the stored field).
(define claim (issue.claim_next (hash "assignee" "agent.a" "leaseTtlSeconds" 1800)))
(define id (hash-ref* (payload claim) "issue" "id"))
(define note (issue.update (hash "id" id "notes" "guarded empty cart")))
(define close (issue.close (hash "id" id "close_reason" "fixed")))
(hash "id" id "closed" (accepted? close))
