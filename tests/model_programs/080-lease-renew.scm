;; task: As agent.a, claim the next ready issue, then extend your lease on it to two hours (7200 seconds). Return a hash {"id": <claimed id>, "renewed": <true if the renewal was accepted>}.
;; expect: {"id":"bd-1","renewed":true}
;; after: {"bd-1": {"status": "in_progress", "assignee": "agent.a"}}
(define c (issue.claim_next (hash "assignee" "agent.a")))
(define id (hash-ref* (payload c) "issue" "id"))
(define r (issue.lease_renew (hash "id" id "assignee" "agent.a" "leaseTtlSeconds" 7200)))
(unless (accepted? r)
  (displayln (failure-classes r)))
(hash "id" id "renewed" (accepted? r))
