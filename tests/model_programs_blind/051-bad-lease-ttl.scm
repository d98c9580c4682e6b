;; task: As agent.docs, claim the next ready issue labelled "docs" with a 5-second lease. If the lease length is refused, retry with the shortest lease allowed. Return a hash with "first" (the first attempt's result class) and "claimed" (the id finally claimed).
;; expect: {"first":"lease_invalid_ttl","claimed":"bd-26"}
;; after: {"bd-26": {"status": "in_progress", "assignee": "agent.docs"}}
(define filt (hash "labels" (list "docs")))
(define try1
  (issue.claim_next (hash "assignee" "agent.docs" "leaseTtlSeconds" 5 "filter" filt)))
(define final
  (if (rejected? try1)
      (issue.claim_next (hash "assignee" "agent.docs" "leaseTtlSeconds" 30 "filter" filt))
      try1))
(hash "first" (result-class try1)
      "claimed" (hash-ref* (payload final) "issue" "id"))
