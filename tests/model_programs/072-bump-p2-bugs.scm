;; task: Triage: every ready bug at priority 2 should become priority 1. Update them and return the list of ids you changed, in the order issue.ready gives them.
;; expect: ["bd-16"]
;; after: {"bd-16": {"priority": 1}}
(define ready (hash-ref (payload (issue.ready)) "issues"))
(define targets
  (filter (lambda (i) (and (equal? (hash-ref i "issue_type") "bug")
                           (= (hash-ref i "priority") 2)))
          ready))
(for-each (lambda (i)
            (issue.update (hash "id" (hash-ref i "id") "priority" 1)))
          targets)
(map (lambda (i) (hash-ref i "id")) targets)
