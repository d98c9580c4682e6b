;; task: As agent.alpha, claim the next ready issue with a 5-second lease; when the lease length is refused, retry with 60 seconds. Return {"first": the first call's result class, "claimed": the id claimed by the retry}.
;; expect: {"first":"lease_invalid_ttl","claimed":"bd-18"}
;; after: {"bd-18": {"status": "in_progress", "assignee": "agent.alpha"}}
(define (try ttl)
  (issue.claim_next (hash "assignee" "agent.alpha" "leaseTtlSeconds" ttl)))
(define e1 (try 5))
(define e2 (if (accepted? e1) e1 (try 60)))
(hash "first" (result-class e1)
      "claimed" (if (accepted? e2)
                    (hash-ref* (payload e2) "issue" "id")
                    (result-class e2)))
