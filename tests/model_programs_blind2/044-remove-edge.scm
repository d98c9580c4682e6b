;; task: The alerts (bd-31) don't really need the report (bd-30) first: remove bd-31's blocks edge on bd-30. Return {"removed": the removed edge types as the payload lists them, "ready": whether bd-31 is ready now}.
;; expect: {"removed":["blocks"],"ready":true}
;; assumes: removedTypes is a list of type strings
(define e (dep.remove (hash "issueId" "bd-31" "dependsOnId" "bd-30" "type" "blocks")))
(define ready? (for/or ([i (hash-ref (payload (issue.ready)) "items")])
                 (equal? (hash-ref i "id") "bd-31")))
(hash "removed" (hash-ref (payload e) "removedTypes" '())
      "ready" ready?)
