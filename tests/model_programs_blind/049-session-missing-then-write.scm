;; task: Start of a planning session: read the persisted session handoff; if there is none (the read is refused or carries no summary), write one with state "active", issue bd-6, summary "Started triage of the billing epic" and next step "Split bd-8 into subtasks". Return the summary a fresh read returns at the end.
;; expect: "Started triage of the billing epic"
;; assumes: a fresh store has no session handoff; harness.session.read's payload carries the handoff's "summary" either under "session" or at top level
(define (summary-of e)
  (and (accepted? e)
       (or (hash-ref* (payload e) "session" "summary")
           (hash-ref (payload e) "summary" #f))))

(define before (harness.session.read))

(unless (summary-of before)
  (harness.session.write (hash "state" "active"
                               "issueId" "bd-6"
                               "summary" "Started triage of the billing epic"
                               "nextStep" "Split bd-8 into subtasks")))

(summary-of (harness.session.read))
