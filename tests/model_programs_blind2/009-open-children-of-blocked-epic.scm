;; task: The invoice epic bd-11 is stuck. List its open children (status open, parent bd-11) as ids sorted by id.
;; expect: ["bd-20","bd-21","bd-22"]
;; assumes: issue.list takes the same "filter" keys as issue.ready, and "parent" takes the epic's id
(define e (issue.list (hash "status" "open" "filter" (hash "parent" "bd-11"))))
(define ids (for/list ([i (hash-ref (payload e) "items")]) (hash-ref i "id")))
(sort ids string<?)
