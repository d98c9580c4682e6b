;; task: Record two trajectory steps for bd-2: "step-1" (action "issue.claim", result class "accepted"), then "step-2" (action "issue.close", result class "issue.already_closed"). Then query the failed rows and return their step ids, in the order the query gives them.
;; expect: ["step-2"]
;; assumes: query mode "failed" returns the rows whose result class is not accepted, as a list under "items" with "stepId"; this run's own host calls (all accepted) add no failed rows
(harness.trajectory.append (hash "stepId" "step-1"
                                 "action" "issue.claim"
                                 "resultClass" "accepted"
                                 "issueId" "bd-2"))
(harness.trajectory.append (hash "stepId" "step-2"
                                 "action" "issue.close"
                                 "resultClass" "issue.already_closed"
                                 "issueId" "bd-2"))
(define q (harness.trajectory.query (hash "mode" "failed")))
(map (lambda (row) (hash-ref row "stepId"))
     (hash-ref (payload q) "items"))
