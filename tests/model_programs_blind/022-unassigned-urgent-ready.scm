;; task: List the ready issues of priority 0 or 1 that nobody is assigned to, as ids sorted by the number in the id.
;; expect: ["bd-1","bd-2","bd-7","bd-10","bd-11","bd-19","bd-22","bd-23"]
;; assumes: epics can be ready (bd-1, bd-23); the filter key "unassigned" takes #t
(define e (issue.ready (hash "filter" (hash "priorityMax" 1 "unassigned" #t))))
(define ids (map (lambda (i) (hash-ref i "id")) (hash-ref (payload e) "items")))
(sort ids < #:key (lambda (id) (string->number (cadr (string-split id "-")))))
