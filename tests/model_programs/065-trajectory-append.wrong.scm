;; task: Record a trajectory step: step id "step-claim-1", action "issue.claim_next", result class "accepted". Then query the trajectory and return true if a row with that step id is among the rows returned, false otherwise.
;; mistake: calls failure-class, a misspelt prelude helper (the helpers are result-class and failure-classes).
;; fix: failure-class is not defined; use result-class (the first class) or failure-classes (the list).
(define a (harness.trajectory.append
           (hash "stepId" "step-claim-1"
                 "action" "issue.claim_next"
                 "resultClass" "accepted")))
(displayln (string-append "append: " (failure-class a)))

(define q (harness.trajectory.query (hash "mode" "latest")))
(define rows (hash-ref (payload q) "rows" '()))
(if (memf (lambda (r) (equal? (hash-ref r "stepId" #f) "step-claim-1")) rows)
    #t
    #f)
