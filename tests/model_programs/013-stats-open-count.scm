;; task: Using the queue statistics, how many issues have status open? Return the count as an integer.
;; expect: 15
(define e (issue.stats))
(displayln (payload e))
(or (hash-ref* (payload e) "byStatus" "open")
    (hash-ref* (payload e) "by_status" "open")
    0)
