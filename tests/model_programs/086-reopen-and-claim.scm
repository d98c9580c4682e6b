;; task: The licences list (bd-14) is out of date again. Reopen it and claim it for agent.legal. Return bd-14's status afterwards as a string.
;; expect: "in_progress"
;; after: {"bd-14": {"status": "in_progress", "assignee": "agent.legal"}}
(define steps
  (list (issue.reopen (hash "id" "bd-14"))
        (issue.claim (hash "id" "bd-14" "assignee" "agent.legal"))))
(for-each (lambda (s) (displayln (result-class s))) steps)
(hash-ref* (payload (issue.show (hash "id" "bd-14"))) "issue" "status")
