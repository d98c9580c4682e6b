;; task: Claim bd-11 for agent.a. Return a hash with "id", "status" and "assignee" of the claimed issue, as the claim reports them.
;; expect: {"id":"bd-11","status":"in_progress","assignee":"agent.a"}
;; after: {"bd-11": {"status": "in_progress", "assignee": "agent.a"}}
;; assumes: issue.claim's payload holds the issue under "issue", as issue.claim_next's does
(define e (issue.claim (hash "id" "bd-11" "assignee" "agent.a")))
(define iss (hash-ref (payload e) "issue"))
(hash "id" (hash-ref iss "id")
      "status" (hash-ref iss "status")
      "assignee" (hash-ref iss "assignee"))
