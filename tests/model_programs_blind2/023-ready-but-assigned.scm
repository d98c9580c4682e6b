;; task: Find ready issues that nonetheless already have an assignee. Return a list of [id, assignee] pairs (two-element lists) sorted by id.
;; expect: [["bd-30","maria.chen"]]
;; assumes: an open issue with an assignee but no lease counts as ready (ready means open, no open blocker, no live lease)
(define items (hash-ref (payload (issue.ready)) "items"))
(define assigned
  (filter-map (lambda (i)
                (let ([who (hash-ref i "assignee" #f)])
                  (and who (list (hash-ref i "id") who))))
              items))
(sort assigned string<? #:key car)
