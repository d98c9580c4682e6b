;; task: The data-loss bug is back: reopen bd-25 and comment "Seen again on 2.4.0" on it as agent.qa. Return bd-25's status afterwards, as issue.show reports it.
;; expect: "open"
;; after: {"bd-25": {"status": "open"}}
(issue.reopen (hash "id" "bd-25"))
(issue.comment (hash "id" "bd-25" "text" "Seen again on 2.4.0" "author" "agent.qa"))
(hash-ref* (payload (issue.show (hash "id" "bd-25"))) "issue" "status")
