;; task: Support escalated the timezone bug: raise bd-34 to priority 1. Then return the ids of all ready issues at priority 1, sorted by id.
;; expect: ["bd-10","bd-19","bd-29","bd-34"]
;; after: {"bd-34": {"priority": 1, "status": "open"}}
(define u (issue.update (hash "id" "bd-34" "priority" 1)))
(unless (accepted? u)
  (error "update failed" (result-class u)))
(define r (issue.ready (hash "filter" (hash "priorityMin" 1 "priorityMax" 1))))
(sort (for/list ([i (hash-ref (payload r) "items")]) (hash-ref i "id")) string<?)
