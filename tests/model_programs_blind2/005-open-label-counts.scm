;; task: Count open issues (status open) per label. Return a hash from label to count, keeping only labels carried by at least 4 open issues.
;; expect: {"billing":9,"pipeline":9,"metering":6,"invoicing":5,"frontend":4,"payments":4}
(define open-items
  (hash-ref (payload (issue.list (hash "status" "open"))) "items"))

(define tally
  (for*/fold ([acc (hash)])
             ([i open-items]
              [l (hash-ref i "labels" '())])
    (hash-update acc l add1 0)))

(for/hash ([(label n) (in-hash tally)]
           #:when (>= n 4))
  (values label n))
