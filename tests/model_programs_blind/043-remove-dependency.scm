;; task: The sync queue (bd-3) no longer needs the SQLite cache (bd-2) first: remove bd-3's blocks edge on bd-2. Return whether bd-3 is ready afterwards (a boolean).
;; expect: true
;; assumes: bd-3's remaining parent-child edge on the open epic bd-1 does not block it
(dep.remove (hash "issueId" "bd-3" "dependsOnId" "bd-2" "type" "blocks"))
(define ready (hash-ref (payload (issue.ready)) "items"))
(and (memf (lambda (i) (equal? (hash-ref i "id") "bd-3")) ready) #t)
