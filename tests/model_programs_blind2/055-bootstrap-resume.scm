;; task: Leave an active handoff for bd-27 (summary "Webhook handler behind flag.", next step "Enable flag for 5% of tenants."), then ask how the next session should start. Return {"mode": the bootstrap mode, "resumeIssueId": the issue it would resume}.
;; expect: {"mode":"resume","resumeIssueId":"bd-27"}
;; assumes: the bootstrap mode is spelled "resume" when an active handoff exists (the guide says "fresh, or resume from the persisted handoff")
(harness.session.write (hash "state" "active"
                             "issueId" "bd-27"
                             "summary" "Webhook handler behind flag."
                             "nextStep" "Enable flag for 5% of tenants."))
(define b (payload (harness.session.bootstrap)))
(hash "mode" (hash-ref b "mode")
      "resumeIssueId" (hash-ref b "resumeIssueId" #f))
