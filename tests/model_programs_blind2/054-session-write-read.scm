;; task: Persist an active session handoff for bd-14 (summary "Consumer batching tuned; lag under 2s.", next step "Handle partition rebalance on deploy."), then read it back. Return {"state", "issueId", "summary", "nextStep"} as the read returns them.
;; expect: {"state":"active","issueId":"bd-14","summary":"Consumer batching tuned; lag under 2s.","nextStep":"Handle partition rebalance on deploy."}
(define w (harness.session.write
           (hash "state" "active"
                 "issueId" "bd-14"
                 "summary" "Consumer batching tuned; lag under 2s."
                 "nextStep" "Handle partition rebalance on deploy.")))
(define r (harness.session.read))
(if (accepted? r)
    (let ([s (payload r)])
      (for/hash ([k '("state" "issueId" "summary" "nextStep")])
        (values k (hash-ref s k #f))))
    (hash "error" (result-class r) "writeClass" (result-class w)))
