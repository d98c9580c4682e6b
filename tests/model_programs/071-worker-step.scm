;; task: Do one full worker step as agent.b: claim the next ready backend issue, comment "starting work" on it, record a trajectory step (step id "b-1", action "issue.claim_next", result class "accepted"), and write a session handoff (summary "started <id>", next step "fix <id>"). Return a hash {"claimed": <id>, "handoff": <true if the handoff write was accepted>}.
;; expect: {"claimed":"bd-13","handoff":true}
;; after: {"bd-13": {"status": "in_progress", "assignee": "agent.b"}}
(define claim (issue.claim_next (hash "assignee" "agent.b"
                                      "filter" (hash "labels" (list "backend")))))
(define id (hash-ref* (payload claim) "issue" "id"))
(displayln (format "claimed ~a" id))

(define comment (issue.comment (hash "id" id "author" "agent.b" "text" "starting work")))
(displayln (format "comment: ~a" (result-class comment)))

(define step (harness.trajectory.append (hash "stepId" "b-1"
                                              "action" "issue.claim_next"
                                              "resultClass" (result-class claim)
                                              "issueId" id)))
(displayln (format "trajectory: ~a" (result-class step)))

(define handoff (harness.session.write (hash "summary" (string-append "started " id)
                                             "nextStep" (string-append "fix " id)
                                             "issueId" id)))
(hash "claimed" id "handoff" (accepted? handoff))
