;; task: You are agent.alpha. Claim bd-19 (freeze the legacy template API) for yourself. Return {"id", "status", "assignee"} of the claimed issue as the claim reports it.
;; expect: {"id":"bd-19","status":"in_progress","assignee":"agent.alpha"}
;; after: {"bd-19": {"status": "in_progress", "assignee": "agent.alpha"}}
(define e (issue.claim (hash "id" "bd-19" "assignee" "agent.alpha")))
(if (accepted? e)
    (let ([i (hash-ref (payload e) "issue")])
      (hash "id" (hash-ref i "id")
            "status" (hash-ref i "status")
            "assignee" (hash-ref i "assignee")))
    (hash "error" (result-class e)))
