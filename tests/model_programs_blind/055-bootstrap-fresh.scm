;; task: Before doing any work, ask how this session should start. Return the bootstrap's decision: "fresh" or "resume".
;; expect: "fresh"
;; assumes: a fresh store has no persisted handoff or feature ledger, so bootstrap decides "fresh"; the payload names the decision under "mode"
(define b (payload (harness.session.bootstrap)))
(hash-ref b "mode")
