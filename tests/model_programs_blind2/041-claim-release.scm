;; task: As agent.beta, claim bd-25, then realise you cannot do it today and give the lease back. Return {"status": bd-25's status afterwards, "assignee": its assignee afterwards or false, "ready": whether it is ready again}.
;; expect: {"status":"open","assignee":false,"ready":true}
;; after: {"bd-25": {"status": "open", "assignee": null}}
(define me "agent.beta")
(define c (issue.claim (hash "id" "bd-25" "assignee" me)))
(when (accepted? c)
  (issue.lease_release (hash "id" "bd-25" "assignee" me)))
(define iss (hash-ref (payload (issue.show (hash "id" "bd-25"))) "issue"))
(define ready-ids (for/list ([i (hash-ref (payload (issue.ready)) "items")]) (hash-ref i "id")))
(hash "status" (hash-ref iss "status")
      "assignee" (hash-ref iss "assignee" #f)
      "ready" (if (member "bd-25" ready-ids) #t #f))
