;; task: As agent.sched, claim the next ready issue labelled "scheduler" with a two-hour lease. Return a hash with "id" and "title" of the claimed issue (or a hash with "error" if the claim failed).
;; expect: {"id":"bd-16","title":"Route optimizer ignores lunch breaks"}
;; after: {"bd-16": {"status": "in_progress", "assignee": "agent.sched"}}
;; assumes: bd-16's discovered-from edge on the in-progress bd-15 does not block it
(define result
  (with-handlers ([exn:fail? (lambda (ex) #f)])
    (issue.claim_next (hash "assignee" "agent.sched"
                            "leaseTtlSeconds" 7200
                            "filter" (hash "labels" (list "scheduler"))))))
(cond
  [(not result) (hash "error" "claim raised")]
  [(rejected? result) (hash "error" (result-class result))]
  [else
   (let ([iss (hash-ref (payload result) "issue")])
     (hash "id" (hash-ref iss "id") "title" (hash-ref iss "title")))])
