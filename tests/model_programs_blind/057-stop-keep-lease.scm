;; task: As agent.b: claim bd-24, then stop the step keeping the lease, with summary "Layout drafted" and next step "Wire the toggles to the API". Return a hash with "status" (bd-24's status afterwards, from issue.show) and "state" (the persisted session's state, from harness.session.read).
;; expect: {"status":"in_progress","state":"stopped"}
;; after: {"bd-24": {"status": "in_progress", "assignee": "agent.b"}}
;; assumes: lease "keep" leaves the issue in_progress with its assignee; harness.session.read's payload holds the handoff under "session" with "state"
(issue.claim (hash "id" "bd-24" "assignee" "agent.b"))
(harness.stop (hash "issueId" "bd-24"
                    "workerId" "agent.b"
                    "summary" "Layout drafted"
                    "nextStep" "Wire the toggles to the API"
                    "lease" "keep"))
(define shown (payload (issue.show (hash "id" "bd-24"))))
(define sess (payload (harness.session.read)))
(hash "status" (hash-ref* shown "issue" "status")
      "state" (hash-ref* sess "session" "state"))
