;; task: File two children under the epic bd-23 ("Technician engagement"): tasks titled "In-app job chat" and "Technician leaderboard", priority 2, each linked to the epic with a parent-child edge. Return the number of ready issues whose parent is bd-23 afterwards.
;; expect: 3
;; assumes: a child is linked as dep.add issueId=<child> dependsOnId=<epic> type "parent-child" (beads' direction); new issues start open and ready; the filter key "parent" matches direct children (bd-22 and the two new tasks, not bd-24)
(define (file-child title)
  (define e (issue.add (hash "title" title "issueType" "task" "priority" 2)))
  (define id (hash-ref* (payload e) "issue" "id"))
  (dep.add (hash "issueId" id "dependsOnId" "bd-23" "type" "parent-child"))
  id)

(for-each file-child (list "In-app job chat" "Technician leaderboard"))

(hash-ref (payload (issue.ready (hash "filter" (hash "parent" "bd-23")))) "count")
