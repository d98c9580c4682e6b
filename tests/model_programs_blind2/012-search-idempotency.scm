;; task: Find everything that mentions "idempotency". Return the matching ids in the order the search ranks them (best match first).
;; expect: ["bd-15","bd-28","bd-14"]
(define s (issue.search (hash "query" "idempotency")))
(for/list ([hit (hash-ref (payload s) "items")])
  (hash-ref hit "id"))
