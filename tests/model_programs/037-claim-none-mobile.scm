;; task: As agent.m, claim the next ready issue labelled "mobile" with a 10-minute lease. Return the claimed id as a string, or the string "none" if no such issue was ready.
;; expect: "none"
(define e (issue.claim_next (hash "assignee" "agent.m"
                                  "leaseTtlSeconds" 600
                                  "filter" (hash "labels" (list "mobile")))))
(cond
  [(rejected? e) (result-class e)]
  [(not (hash-ref (payload e) "claimed" #f)) "none"]
  [else (hash-ref* (payload e) "issue" "id")])
