;; task: Simulate two workers starting at once: agent.a claims the next ready issue, then agent.b claims the next ready issue. Return the two claimed ids as a list [agent.a's, agent.b's].
;; expect: ["bd-18","bd-28"]
;; after: {"bd-18": {"status": "in_progress", "assignee": "agent.a"}, "bd-28": {"status": "in_progress", "assignee": "agent.b"}}
(define (claim-for who)
  (define e (issue.claim_next (hash "assignee" who)))
  (if (and (accepted? e) (hash-ref (payload e) "claimed" #f))
      (hash-ref* (payload e) "issue" "id")
      #f))
(define a (claim-for "agent.a"))
(define b (claim-for "agent.b"))
(list a b)
