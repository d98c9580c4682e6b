;; task: As agent.a, try to release the lease on bd-19 (which another worker holds). Return the result class of the release call as a string ("accepted" or the failure class).
;; expect: "lease_owner_mismatch"
;; after: {"bd-19": {"status": "in_progress", "assignee": "agent.ops"}}
(result-class (issue.lease_release (hash "id" "bd-19" "assignee" "agent.a")))
