;; task: Plan two more pieces of the dunning epic bd-12: add "Grace period before suspending accounts" (id bd-51, task, priority 2) and "Dunning metrics dashboard" (id bd-52, task, priority 3), each a child of bd-12. Return {"openChildren": ids of bd-12's children with status open, sorted by id; "readyNew": which of bd-51/bd-52 are ready, sorted}.
;; expect: {"openChildren":["bd-25","bd-26","bd-28","bd-51","bd-52"],"readyNew":["bd-51","bd-52"]}
;; after: {"bd-51": {"title": "Grace period before suspending accounts", "status": "open", "priority": 2, "issue_type": "task"}, "bd-52": {"title": "Dunning metrics dashboard", "status": "open", "priority": 3, "issue_type": "task"}}
;; assumes: issue.add honours an explicit "id"; issue.list's "filter" takes "parent"
(define specs
  '(("bd-51" "Grace period before suspending accounts" 2)
    ("bd-52" "Dunning metrics dashboard" 3)))
(define created
  (for/list ([s specs])
    (match-define (list id title prio) s)
    (define a (issue.add (hash "id" id "title" title "issueType" "task" "priority" prio)))
    (define new-id (hash-ref* (payload a) "issue" "id"))
    (dep.add (hash "issueId" new-id "dependsOnId" "bd-12" "type" "parent-child"))
    new-id))
(define kids
  (hash-ref (payload (issue.list (hash "status" "open" "filter" (hash "parent" "bd-12")))) "items"))
(define ready-ids (map (lambda (i) (hash-ref i "id")) (hash-ref (payload (issue.ready)) "items")))
(hash "openChildren" (sort (map (lambda (i) (hash-ref i "id")) kids) string<?)
      "readyNew" (sort (filter (lambda (id) (member id ready-ids)) created) string<?))
