;; task: You are agent.pay2, a payments worker. Claim the next ready issue labelled "payments" only. Return the claimed issue's id (or "none").
;; expect: "bd-28"
;; after: {"bd-28": {"status": "in_progress", "assignee": "agent.pay2"}}
(define e (issue.claim_next (hash "assignee" "agent.pay2"
                                  "filter" (hash "labels" (list "payments")))))
(if (and (accepted? e) (hash-ref (payload e) "claimed"))
    (hash-ref* (payload e) "issue" "id")
    "none")
