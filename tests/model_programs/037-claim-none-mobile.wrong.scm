;; task: As agent.m, claim the next ready issue labelled "mobile" with a 10-minute lease. Return the claimed id as a string, or the string "none" if no such issue was ready.
;; mistake: writes the lease length argument in snake case, "lease_ttl_seconds", instead of "leaseTtlSeconds".
;; fix: issue.claim_next has no argument lease_ttl_seconds; it is called leaseTtlSeconds.
(define e (issue.claim_next (hash "assignee" "agent.m"
                                  "lease_ttl_seconds" 600
                                  "filter" (hash "labels" (list "mobile")))))
(cond
  [(rejected? e) (result-class e)]
  [(not (hash-ref (payload e) "claimed" #f)) "none"]
  [else (hash-ref* (payload e) "issue" "id")])
