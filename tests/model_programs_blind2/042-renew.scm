;; task: As agent.gamma, claim bd-34 with a 600-second lease, then renew it for 7200 seconds because the work runs long. Return {"renewed": whether the renewal was accepted, "owner": the renewed lease's owner, "status": the issue's status after}.
;; expect: {"renewed":true,"owner":"agent.gamma","status":"in_progress"}
;; after: {"bd-34": {"status": "in_progress", "assignee": "agent.gamma"}}
;; assumes: the renewal payload's "lease" is a Lease hash (with "owner")
(define me "agent.gamma")
(define c (issue.claim (hash "id" "bd-34" "assignee" me "leaseTtlSeconds" 600)))
(define r (issue.lease_renew (hash "id" "bd-34" "assignee" me "leaseTtlSeconds" 7200)))
(define p (payload r))
(hash "renewed" (accepted? r)
      "owner" (hash-ref* p "lease" "owner")
      "status" (hash-ref* p "issue" "status"))
