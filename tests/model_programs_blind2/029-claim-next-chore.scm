;; task: You are agent.ops and only do chores. Claim the next ready chore (issue type chore). Return {"id": claimed id, "title": its title}.
;; expect: {"id":"bd-32","title":"Upgrade Postgres driver in billing-api"}
;; after: {"bd-32": {"status": "in_progress", "assignee": "agent.ops"}}
(define e (issue.claim_next (hash "assignee" "agent.ops"
                                  "filter" (hash "types" '("chore")))))
(match (and (accepted? e) (payload e))
  [#f (hash "error" (result-class e))]
  [p (if (hash-ref p "claimed" #f)
         (hash "id" (hash-ref* p "issue" "id")
               "title" (hash-ref* p "issue" "title"))
         (hash "id" #f))])
