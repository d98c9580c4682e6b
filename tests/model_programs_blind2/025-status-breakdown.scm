;; task: Break the store down by status. Return a hash from status to issue count, from the stats.
;; expect: {"open":25,"in_progress":3,"blocked":1,"closed":5}
;; assumes: byStatus is a hash from status name to count, listing only statuses that occur
(define s (payload (issue.stats)))
(define by (hash-ref s "byStatus"))
(for/hash ([(k v) (in-hash by)] #:when (> v 0))
  (values (if (symbol? k) (symbol->string k) k) v))
