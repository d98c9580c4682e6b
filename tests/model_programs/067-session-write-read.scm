;; task: Leave a handoff for the next session: summary "triaged checkout bugs", next step "claim bd-10", issue bd-10. Then read the handoff back and return its summary as a string.
;; expect: "triaged checkout bugs"
(define w (harness.session.write (hash "summary" "triaged checkout bugs"
                                       "nextStep" "claim bd-10"
                                       "issueId" "bd-10")))
(unless (accepted? w)
  (displayln (failure-classes w)))
(define s (payload (harness.session.read)))
(or (hash-ref* s "summary")
    (hash-ref* s "session" "summary"))
