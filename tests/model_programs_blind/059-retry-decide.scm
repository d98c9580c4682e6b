;; task: An attempt to close bd-9 failed with memory.io_error (first attempt). Ask the retry policy what to do, print its decision, and record a trajectory row "retry-1" (action "issue.close", result class "memory.io_error", issue bd-9). Return a list of the two calls' result classes, decision first.
;; expect: ["accepted","accepted"]
(define d (harness.retry.decide (hash "failureClasses" (list "memory.io_error") "attempt" 1)))
(displayln "retry decision: " (payload d))
(define a (harness.trajectory.append (hash "stepId" "retry-1"
                                           "action" "issue.close"
                                           "resultClass" "memory.io_error"
                                           "issueId" "bd-9")))
(list (result-class d) (result-class a))
