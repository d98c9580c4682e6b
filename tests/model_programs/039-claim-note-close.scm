;; task: As agent.a, claim the next ready issue, record the note "guarded empty cart", then close it with the reason "fixed". Return a hash {"id": <claimed id>, "closed": <true if the close was accepted>}.
;; expect: {"id":"bd-1","closed":true}
;; after: {"bd-1": {"status": "closed", "notes": "guarded empty cart", "close_reason": "fixed"}}
(define claim (issue.claim_next (hash "assignee" "agent.a" "leaseTtlSeconds" 1800)))
(define id (hash-ref* (payload claim) "issue" "id"))
(define note (issue.update (hash "id" id "notes" "guarded empty cart")))
(define close (issue.close (hash "id" id "reason" "fixed")))
(hash "id" id "closed" (accepted? close))
