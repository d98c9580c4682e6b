;; task: You are agent.bugs. Keep claiming the next ready bug (issue type bug) until none is left; on each one you claim, set the note "triaged". Return the claimed ids as a list of strings, in the order you claimed them.
;; expect: ["bd-1","bd-13","bd-3","bd-16"]
;; after: {"bd-1": {"status": "in_progress", "assignee": "agent.bugs", "notes": "triaged"}, "bd-13": {"status": "in_progress", "assignee": "agent.bugs", "notes": "triaged"}, "bd-3": {"status": "in_progress", "assignee": "agent.bugs", "notes": "triaged"}, "bd-16": {"status": "in_progress", "assignee": "agent.bugs", "notes": "triaged"}}
(define (claim-bug)
  (issue.claim_next (hash "assignee" "agent.bugs"
                          "filter" (hash "types" (list "bug")))))

(let loop ([claimed '()] [guard 0])
  (define e (claim-bug))
  (cond
    [(or (>= guard 20) (rejected? e)) (reverse claimed)]
    [(not (hash-ref (payload e) "claimed" #f)) (reverse claimed)]
    [else
     (define id (hash-ref* (payload e) "issue" "id"))
     (issue.update (hash "id" id "notes" "triaged"))
     (loop (cons id claimed) (+ guard 1))]))
