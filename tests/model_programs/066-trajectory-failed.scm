;; task: Record a failed trajectory step for bd-19: step id "step-renew-7", action "issue.lease_renew", result class "lease_stale". Then ask the trajectory for failed steps and return true if "step-renew-7" is among them, false otherwise.
;; expect: true
(harness.trajectory.append (hash "stepId" "step-renew-7"
                                 "action" "issue.lease_renew"
                                 "resultClass" "lease_stale"
                                 "issueId" "bd-19"))
(define failed (payload (harness.trajectory.query (hash "mode" "failed"))))
(define step-ids
  (map (lambda (row) (or (hash-ref row "stepId" #f) (hash-ref row "step_id" #f)))
       (hash-ref failed "rows" '())))
(displayln step-ids)
(and (member "step-renew-7" step-ids) #t)
