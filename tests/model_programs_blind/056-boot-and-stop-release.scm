;; task: As agent.a: claim bd-19, boot the step for it, then stop the step releasing the lease, with summary "Investigated the timezone bug" and next step "Pick up again after the i18n review". Return a list: the boot's result class, the stop's result class, and bd-19's status afterwards (from issue.show).
;; expect: ["accepted","accepted","open"]
;; after: {"bd-19": {"status": "open"}}
;; assumes: harness.stop's "lease" argument takes the word "release" (else "renew" or "keep"), and releasing returns the issue to open as issue.lease_release does
(define me "agent.a")
(issue.claim (hash "id" "bd-19" "assignee" me))
(define boot (harness.boot (hash "workerId" me "issueId" "bd-19")))
(define stop (harness.stop (hash "issueId" "bd-19"
                                 "workerId" me
                                 "summary" "Investigated the timezone bug"
                                 "nextStep" "Pick up again after the i18n review"
                                 "lease" "release")))
(list (result-class boot)
      (result-class stop)
      (hash-ref* (payload (issue.show (hash "id" "bd-19"))) "issue" "status"))
