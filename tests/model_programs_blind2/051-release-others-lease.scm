;; task: agent.a claims bd-29; then agent.b, confused, tries to release bd-29's lease. Handle the refusal. Return {"released": whether agent.b's release was accepted, "status": bd-29's status afterwards, "assignee": its assignee afterwards}.
;; expect: {"released":false,"status":"in_progress","assignee":"agent.a"}
;; after: {"bd-29": {"status": "in_progress", "assignee": "agent.a"}}
(define c (issue.claim (hash "id" "bd-29" "assignee" "agent.a")))
(define r (issue.lease_release (hash "id" "bd-29" "assignee" "agent.b")))
(define released (accepted? r))
(when (rejected? r)
  (displayln (string-append "release refused: " (result-class r))))
(define iss (hash-ref (payload (issue.show (hash "id" "bd-29"))) "issue"))
(hash "released" released
      "status" (hash-ref iss "status")
      "assignee" (hash-ref iss "assignee" #f))
