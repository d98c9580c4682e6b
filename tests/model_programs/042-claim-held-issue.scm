;; task: As agent.a, try to claim bd-19 even though it may already be leased. Return true if the claim was accepted and false if it was refused.
;; expect: false
;; after: {"bd-19": {"status": "in_progress", "assignee": "agent.ops"}}
(define e (issue.claim (hash "id" "bd-19" "assignee" "agent.a")))
(when (rejected? e)
  (display "claim refused: ")
  (displayln (failure-classes e)))
(accepted? e)
