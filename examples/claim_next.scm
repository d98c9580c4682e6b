;; Claim the next ready issue for this worker, or say there is nothing to do.
;; Needs authority: run with --policy-digest "$(tusk policy digest)" --instruction-ref R.
(define claim (issue.claim_next (hash "assignee" "agent.example" "leaseTtlSeconds" 600)))
(cond
  [(not (accepted? claim))
   (hash "claimed" #f "why" (failure-classes claim))]
  [(hash-ref (payload claim) "claimed")
   (let ([issue (hash-ref (payload claim) "issue")])
     (displayln (->string (list "claimed" (hash-ref issue "id") (hash-ref issue "title"))))
     (hash "claimed" #t "id" (hash-ref issue "id")))]
  [else (hash "claimed" #f "why" "nothing ready")])
