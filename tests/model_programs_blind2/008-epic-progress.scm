;; task: Report progress of every epic: for each epic id, a hash {"children": number of child issues (issues whose parent-child edge names the epic, any status), "closed": how many of those are closed}. Return a hash keyed by epic id.
;; expect: {"bd-10":{"children":6,"closed":1},"bd-11":{"children":4,"closed":1},"bd-12":{"children":4,"closed":0}}
;; assumes: dep.project with no view lists every edge, with "type" spelled as in beads ("parent-child")
(define edges (hash-ref (payload (dep.project (hash))) "items"))
(define epics
  (map (lambda (i) (hash-ref i "id"))
       (hash-ref (payload (issue.list (hash "issueType" "epic"))) "items")))
(define closed-ids
  (map (lambda (i) (hash-ref i "id"))
       (hash-ref (payload (issue.list (hash "status" "closed"))) "items")))

(define (children-of epic)
  (for/list ([e edges]
             #:when (and (equal? (hash-ref e "type") "parent-child")
                         (equal? (hash-ref e "dependsOnId") epic)))
    (hash-ref e "issueId")))

(for/hash ([epic epics])
  (define kids (children-of epic))
  (values epic
          (hash "children" (length kids)
                "closed" (count (lambda (k) (member k closed-ids)) kids))))
