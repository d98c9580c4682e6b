;; task: As agent.a, claim bd-30 with a 10-minute lease, then renew the lease for two hours. Return a list of the two calls' result classes, claim first.
;; expect: ["accepted","accepted"]
;; after: {"bd-30": {"status": "in_progress", "assignee": "agent.a"}}
(define c (issue.claim (hash "id" "bd-30" "assignee" "agent.a" "leaseTtlSeconds" 600)))
(define r (issue.lease_renew (hash "id" "bd-30" "assignee" "agent.a" "leaseTtlSeconds" 7200)))
(list (result-class c) (result-class r))
