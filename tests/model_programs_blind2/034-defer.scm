;; task: The Postgres driver upgrade (bd-32) is postponed: set its status to deferred. Return {"readyCount": the number of ready issues afterwards, "stillReady": whether bd-32 is among them}.
;; expect: {"readyCount":12,"stillReady":false}
;; after: {"bd-32": {"status": "deferred"}}
(define u (issue.update (hash "id" "bd-32" "status" "deferred")))
(define r (payload (issue.ready)))
(define ids (map (lambda (i) (hash-ref i "id")) (hash-ref r "items")))
(hash "readyCount" (hash-ref r "count" (length ids))
      "stillReady" (and (member "bd-32" ids) #t))
