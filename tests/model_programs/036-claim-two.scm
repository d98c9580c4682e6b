;; task: As agent.a, claim two issues one after the other with issue.claim_next. Return the two claimed ids as a list of strings, in the order you claimed them.
;; expect: ["bd-1","bd-13"]
;; after: {"bd-1": {"status": "in_progress", "assignee": "agent.a"}, "bd-13": {"status": "in_progress", "assignee": "agent.a"}}
(define (claim-one)
  (let ([e (issue.claim_next (hash "assignee" "agent.a"))])
    (hash-ref* (payload e) "issue" "id")))

(define first-id (claim-one))
(define second-id (claim-one))
(list first-id second-id)
