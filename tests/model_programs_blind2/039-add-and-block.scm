;; task: File a new task with id "bd-50", title "Alert when FX rate cache is older than 1h", priority 1, type task, labels billing and currency; then make bd-29 wait on it with a blocks edge (bd-29 depends on bd-50). Return {"created": the new id, "bd29Ready": whether bd-29 is ready now, "bd50Ready": whether bd-50 is ready}.
;; expect: {"created":"bd-50","bd29Ready":false,"bd50Ready":true}
;; after: {"bd-50": {"title": "Alert when FX rate cache is older than 1h", "status": "open", "priority": 1, "issue_type": "task", "labels": ["billing", "currency"]}}
;; assumes: issue.add honours an explicit "id"
(define a (issue.add (hash "id" "bd-50"
                           "title" "Alert when FX rate cache is older than 1h"
                           "priority" 1
                           "issueType" "task"
                           "labels" (list "billing" "currency"))))
(define new-id (hash-ref* (payload a) "issue" "id"))
(define d (dep.add (hash "issueId" "bd-29" "dependsOnId" new-id "type" "blocks")))
(define ready (for/list ([i (hash-ref (payload (issue.ready)) "items")]) (hash-ref i "id")))
(hash "created" new-id
      "bd29Ready" (and (member "bd-29" ready) #t)
      "bd50Ready" (and (member new-id ready) #t))
