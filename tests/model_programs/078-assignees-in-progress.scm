;; task: Who is working on something right now? Return the distinct assignees of in-progress issues as a list of strings sorted alphabetically.
;; expect: ["agent.infra","agent.ops"]
(define issues (hash-ref (payload (issue.list (hash "status" "in_progress"))) "issues"))
(define names
  (remove-duplicates
   (filter string? (map (lambda (i) (hash-ref i "assignee" #f)) issues))))
(sort names string<?)
