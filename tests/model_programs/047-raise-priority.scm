;; task: The dark-mode request (bd-15) got more important: set its priority to 1. Then return bd-15's position in the ready queue as a 0-based integer index (its place in the order issue.ready gives), or -1 if it is not ready.
;; expect: 6
;; after: {"bd-15": {"priority": 1}}
(issue.update (hash "id" "bd-15" "priority" 1))
(define ids (map (lambda (i) (hash-ref i "id"))
                 (hash-ref (payload (issue.ready)) "issues")))
(let loop ([xs ids] [n 0])
  (cond
    [(null? xs) -1]
    [(equal? (car xs) "bd-15") n]
    [else (loop (cdr xs) (+ n 1))]))
