;; task: As agent.c you only take less urgent work: claim the next ready issue whose priority is 2 or higher in number (2, 3 or 4). Return its id as a string, or "none".
;; expect: "bd-2"
;; after: {"bd-2": {"status": "in_progress", "assignee": "agent.c"}}
(define e
  (issue.claim_next
   (hash "assignee" "agent.c"
         "filter" (hash "priorityMin" 2 "priorityMax" 4))))
(displayln (result-class e))
(cond
  [(rejected? e) (result-class e)]
  [(hash-ref (payload e) "claimed") (hash-ref* (payload e) "issue" "id")]
  [else "none"])
