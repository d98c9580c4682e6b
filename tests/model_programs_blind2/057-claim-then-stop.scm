;; task: As agent.alpha, claim bd-19, then stop the step and release the lease (summary "Drafted the freeze announcement.", next step "Get sign-off from dev.okafor."). Return {"issueStatus": bd-19's status afterwards, "sessionState": the persisted session's state, "sessionIssue": the persisted session's issue id}.
;; expect: {"issueStatus":"open","sessionState":"stopped","sessionIssue":"bd-19"}
;; after: {"bd-19": {"status": "open", "assignee": null}}
;; assumes: harness.stop's "lease" argument takes "release" (the guide: release, renew or keep the lease)
(define me "agent.alpha")
(define claim (issue.claim (hash "id" "bd-19" "assignee" me)))
(unless (accepted? claim)
  (error "claim failed" (result-class claim)))
(define stop (harness.stop (hash "issueId" "bd-19"
                                 "workerId" me
                                 "summary" "Drafted the freeze announcement."
                                 "nextStep" "Get sign-off from dev.okafor."
                                 "lease" "release")))
(define iss (hash-ref (payload (issue.show (hash "id" "bd-19"))) "issue"))
(define sess (payload (harness.session.read)))
(hash "issueStatus" (hash-ref iss "status")
      "sessionState" (hash-ref sess "state")
      "sessionIssue" (hash-ref sess "issueId"))
