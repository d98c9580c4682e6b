;; task: As agent.a, claim bd-26, then change your mind and give the lease back. Return bd-26's status after the release, as the release reports it.
;; expect: "open"
;; after: {"bd-26": {"status": "open"}}
(issue.claim (hash "id" "bd-26" "assignee" "agent.a"))
(define r (issue.lease_release (hash "id" "bd-26" "assignee" "agent.a")))
(hash-ref* (payload r) "issue" "status")
