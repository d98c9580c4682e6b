;; task: You are agent.pipe, a background worker for the pipeline team that must leave urgent work (priority 0 and 1) to others. Claim the next ready "pipeline" issue with priority 2 or lower urgency (priority number >= 2). Return the claimed id.
;; expect: "bd-43"
;; after: {"bd-43": {"status": "in_progress", "assignee": "agent.pipe"}}
(define e
  (issue.claim_next
   (hash "assignee" "agent.pipe"
         "filter" (hash "labels" (list "pipeline") "priorityMin" 2))))
(cond
  [(rejected? e) (result-class e)]
  [(hash-ref (payload e) "claimed") (hash-ref* (payload e) "issue" "id")]
  [else "nothing"])
