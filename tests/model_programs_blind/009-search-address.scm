;; task: Search the queue for "address" and return the ids of the matching issues, best match first.
;; expect: ["bd-11","bd-10"]
(define res (issue.search (hash "query" "address")))
(map (lambda (i) (hash-ref i "id"))
     (hash-ref (payload res) "items"))
