;; task: From the queue statistics, return a hash with the number of issues in each of the statuses "open", "in_progress" and "closed" (keys exactly those three).
;; expect: {"open":22,"in_progress":3,"closed":3}
;; assumes: issue.stats reports per-status counts as a hash keyed by status name under "byStatus"
(define s (payload (issue.stats)))
(define by-status (hash-ref s "byStatus"))
(hash "open" (hash-ref by-status "open" 0)
      "in_progress" (hash-ref by-status "in_progress" 0)
      "closed" (hash-ref by-status "closed" 0))
