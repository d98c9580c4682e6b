;; task: As agent.docs, claim the next ready issue labelled "docs" and add the working note "picked up". Return the claimed issue's id as a string.
;; expect: "bd-17"
;; after: {"bd-17": {"status": "in_progress", "assignee": "agent.docs", "notes": "picked up"}}
(define claim (issue.claim_next (hash "assignee" "agent.docs"
                                      "filter" (hash "labels" (list "docs")))))
(define id (hash-ref* (payload claim) "issue" "id"))
(when id
  (issue.update (hash "id" id "notes" "picked up")))
id
