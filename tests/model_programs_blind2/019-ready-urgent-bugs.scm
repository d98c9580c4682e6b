;; task: List ready bugs of priority 0 or 1. Return their ids ordered by priority, then id.
;; expect: ["bd-18","bd-28","bd-29"]
(define e (issue.ready (hash "filter" (hash "types" (list "bug") "priorityMax" 1))))
(define items (hash-ref (payload e) "items" '()))
(define keyed (map (lambda (i) (cons (hash-ref i "priority") (hash-ref i "id"))) items))
(map cdr
     (sort keyed (lambda (a b)
                   (or (< (car a) (car b))
                       (and (= (car a) (car b)) (string<? (cdr a) (cdr b)))))))
