;; task: agent.a claims bd-11; then agent.b tries to claim bd-11 as well and must not take it over. Return a hash with "second" ("refused" if agent.b's claim was refused, "taken" otherwise) and "assignee" (bd-11's assignee afterwards, from issue.show).
;; expect: {"second":"refused","assignee":"agent.a"}
;; after: {"bd-11": {"status": "in_progress", "assignee": "agent.a"}}
;; assumes: issue.claim refuses an issue on which another worker holds a live lease (rather than stealing it)
(define first-claim (issue.claim (hash "id" "bd-11" "assignee" "agent.a")))
(define second-claim (issue.claim (hash "id" "bd-11" "assignee" "agent.b")))
(hash "second" (if (rejected? second-claim) "refused" "taken")
      "assignee" (hash-ref* (payload (issue.show (hash "id" "bd-11"))) "issue" "assignee"))
