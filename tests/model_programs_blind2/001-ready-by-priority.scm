;; task: List every issue that is ready to start now. Return a list of id strings ordered by priority (0 first), then by id.
;; expect: ["bd-18","bd-28","bd-10","bd-19","bd-29","bd-12","bd-25","bd-30","bd-34","bd-32","bd-43","bd-35","bd-39"]
(define r (issue.ready))
(define items (hash-ref (payload r) "items" '()))

(define (before? a b)
  (define pa (hash-ref a "priority"))
  (define pb (hash-ref b "priority"))
  (cond
    [(< pa pb) #t]
    [(> pa pb) #f]
    [else (string<? (hash-ref a "id") (hash-ref b "id"))]))

(for/list ([i (sort items before?)])
  (hash-ref i "id"))
