;; task: Someone asks to make bd-2 (SQLite cache) depend on bd-3 (sync queue) with a blocks edge, but bd-3 already depends on bd-2. Try it anyway and report: return a hash with "added" (whether the edge was accepted, a boolean) and "bd2Ready" (whether bd-2 is still ready afterwards, a boolean).
;; expect: {"added":false,"bd2Ready":true}
(define e (dep.add (hash "issueId" "bd-2" "dependsOnId" "bd-3" "type" "blocks")))
(define ready-ids
  (for/list ([i (hash-ref (payload (issue.ready)) "items")])
    (hash-ref i "id")))
(hash "added" (accepted? e)
      "bd2Ready" (if (member "bd-2" ready-ids) #t #f))
