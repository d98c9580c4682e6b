;; task: Where is bd-20 in the ready queue? Return its 0-based index in the order issue.ready gives, as an integer, or -1 if it is not ready.
;; expect: 9
(define ids (map (lambda (i) (hash-ref i "id"))
                 (hash-ref (payload (issue.ready)) "issues")))
(do ([xs ids (cdr xs)]
     [n 0 (+ n 1)])
    ((or (null? xs) (equal? (car xs) "bd-20"))
     (if (null? xs) -1 n)))
