;; task: Reopen bd-5 with a note that it needs a section on deploys, then count the ready issues. Return the number of ready issues after the reopen as an integer.
;; expect: 13
;; after: {"bd-5": {"status": "open", "notes": "needs a section on deploys"}}
(let* ([r (issue.reopen (hash "id" "bd-5"))]
       [u (issue.update (hash "id" "bd-5" "notes" "needs a section on deploys"))]
       [ready (issue.ready)])
  (displayln (list (result-class r) (result-class u)))
  (length (hash-ref (payload ready) "issues")))
