;; task: Two workers race for bd-19: agent.a claims it, then agent.b tries to claim it too. Handle the refusal. Return {"first": whether agent.a's claim was accepted, "second": whether agent.b's was, "holder": bd-19's assignee afterwards}.
;; expect: {"first":true,"second":false,"holder":"agent.a"}
;; after: {"bd-19": {"status": "in_progress", "assignee": "agent.a"}}
(define first-claim (issue.claim (hash "id" "bd-19" "assignee" "agent.a")))
(define second-claim (issue.claim (hash "id" "bd-19" "assignee" "agent.b")))
(define holder (hash-ref* (payload (issue.show (hash "id" "bd-19"))) "issue" "assignee"))
(hash "first" (accepted? first-claim)
      "second" (accepted? second-claim)
      "holder" holder)
