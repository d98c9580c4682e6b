;; task: Record a trajectory step: step id "step-claim-1", action "issue.claim_next", result class "accepted". Then query the trajectory and return true if a row with that step id is among the rows returned, false otherwise.
;; expect: true
(define a (harness.trajectory.append
           (hash "stepId" "step-claim-1"
                 "action" "issue.claim_next"
                 "resultClass" "accepted")))
(displayln (string-append "append: " (result-class a)))

(define q (harness.trajectory.query (hash "mode" "latest")))
(define rows (hash-ref (payload q) "rows" '()))
(if (memf (lambda (r) (equal? (hash-ref r "stepId" #f) "step-claim-1")) rows)
    #t
    #f)
