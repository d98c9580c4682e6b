;; task: One worker turn as agent.c, who only takes chores nobody is assigned to: claim the next such ready chore, set its notes to "cleaned up by agent.c", close it with reason "done". Return (hash "closed" <id>), or (hash "stopped" <why>) if nothing could be claimed, or (hash "released" <id> "because" <class>) if the close failed.
;; expect: {"closed":"bd-30"}
;; after: {"bd-30": {"status": "closed", "notes": "cleaned up by agent.c", "close_reason": "done"}}
;; assumes: the filter key "unassigned" takes #t and skips bd-21 (assigned to agent.omar)
(define me "agent.c")
(define claim (issue.claim_next (hash "assignee" me
                                      "filter" (hash "types" (list "chore") "unassigned" #t))))
(cond
  [(rejected? claim) (hash "stopped" (result-class claim))]
  [(not (hash-ref (payload claim) "claimed")) (hash "stopped" "nothing ready")]
  [else
   (define id (hash-ref* (payload claim) "issue" "id"))
   (issue.update (hash "id" id "notes" (format "cleaned up by ~a" me)))
   (define done (issue.close (hash "id" id "reason" "done")))
   (if (accepted? done)
       (hash "closed" id)
       (begin
         (issue.lease_release (hash "id" id "assignee" me))
         (hash "released" id "because" (result-class done))))])
