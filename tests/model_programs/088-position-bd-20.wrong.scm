;; task: Where is bd-20 in the ready queue? Return its 0-based index in the order issue.ready gives, as an integer, or -1 if it is not ready.
;; mistake: uses Racket's index-of (from racket/list), which is not a Scheme builtin here.
;; fix: index-of is not defined; the error must say so (and ideally name an available alternative or suggest a loop over the list).
(define ids (map (lambda (i) (hash-ref i "id"))
                 (hash-ref (payload (issue.ready)) "issues")))
(or (index-of ids "bd-20") -1)
