;; task: You are agent.alpha, starting a shift. Claim the next ready issue. Return {"claimed": whether something was claimed, "id": its id, "priority": its priority}.
;; expect: {"claimed":true,"id":"bd-18","priority":0}
;; after: {"bd-18": {"status": "in_progress", "assignee": "agent.alpha"}}
(define e (issue.claim_next (hash "assignee" "agent.alpha")))
(cond
  [(rejected? e) (hash "claimed" #f "error" (result-class e))]
  [(not (hash-ref (payload e) "claimed" #f)) (hash "claimed" #f)]
  [else
   (define iss (hash-ref (payload e) "issue"))
   (hash "claimed" #t
         "id" (hash-ref iss "id")
         "priority" (hash-ref iss "priority"))])
