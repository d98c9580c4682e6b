;; task: bd-16 (route optimizer) cannot start until the queue cluster bd-15 is done: turn bd-16's discovered-from edge on bd-15 into a blocks edge. Return a hash with "blocked" (whether bd-16 is now among the blocked issues, a boolean) and "readyCount" (the number of ready issues afterwards).
;; expect: {"blocked":true,"readyCount":16}
;; assumes: only blocks edges to non-closed issues block, so the ready count before the change is 17 (as in bd ready)
(dep.replace (hash "issueId" "bd-16"
                   "dependsOnId" "bd-15"
                   "type" "blocks"
                   "fromType" "discovered-from"))
(define blocked-ids
  (map (lambda (i) (hash-ref i "id"))
       (hash-ref (payload (issue.blocked)) "items")))
(hash "blocked" (if (member "bd-16" blocked-ids) #t #f)
      "readyCount" (hash-ref (payload (issue.ready)) "count"))
