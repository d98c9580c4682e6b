;; task: As agent.ops, claim the next ready chore (issue type chore). Return the claimed issue's id as a string, or "none".
;; expect: "bd-4"
;; after: {"bd-4": {"status": "in_progress", "assignee": "agent.ops"}}
(let* ([e (issue.claim_next
           (hash "assignee" "agent.ops"
                 "filter" (hash "types" (list "chore"))))]
       [id (hash-ref* (payload e) "issue" "id")])
  (if (and (accepted? e) id) id "none"))
