;; task: As agent.ops, claim the next ready issue labelled "infra" that is not already assigned to someone. Return the claimed issue's id.
;; expect: "bd-13"
;; after: {"bd-13": {"status": "in_progress", "assignee": "agent.ops"}, "bd-21": {"status": "open", "assignee": "agent.omar"}}
;; assumes: the filter key "unassigned" takes #t and excludes issues that already have an assignee (bd-21 belongs to agent.omar although it has no lease)
(define e (issue.claim_next (hash "assignee" "agent.ops"
                                  "filter" (hash "labels" '("infra") "unassigned" #t))))
(hash-ref* (payload e) "issue" "id")
