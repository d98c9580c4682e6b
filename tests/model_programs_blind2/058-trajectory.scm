;; task: Record two steps in the trajectory: "step-058-a" (action issue.claim, result accepted, issue bd-18) and "step-058-b" (action issue.close, result issue.not_found, issue bd-99). Then query the latest rows and return a hash from each of those two step ids to the result class the query shows for it.
;; expect: {"step-058-a":"accepted","step-058-b":"issue.not_found"}
;; assumes: query mode "latest" returns the most recent rows up to the limit, each row with "stepId" and "resultClass"; other rows the run itself may add are ignored
(harness.trajectory.append (hash "stepId" "step-058-a" "action" "issue.claim"
                                 "resultClass" "accepted" "issueId" "bd-18"))
(harness.trajectory.append (hash "stepId" "step-058-b" "action" "issue.close"
                                 "resultClass" "issue.not_found" "issueId" "bd-99"))
(define q (payload (harness.trajectory.query (hash "mode" "latest" "limit" 50))))
(define mine '("step-058-a" "step-058-b"))
(for/hash ([row (hash-ref q "items" '())]
           #:when (member (hash-ref row "stepId" "") mine))
  (values (hash-ref row "stepId") (hash-ref row "resultClass")))
