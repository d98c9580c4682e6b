;; task: Which issues are blocked right now? Return the ids of all blocked issues as a list sorted by id.
;; expect: ["bd-11","bd-15","bd-16","bd-17","bd-20","bd-21","bd-22","bd-26","bd-31","bd-37","bd-38","bd-42"]
;; assumes: issue.blocked lists the open children of a blocked epic (the guide says such a child is blocked too), and does not list an issue whose status is "blocked" but that has no dependency edges
(define b (issue.blocked (hash)))
(sort (map (lambda (i) (hash-ref i "id"))
           (hash-ref (payload b) "items"))
      string<?)
