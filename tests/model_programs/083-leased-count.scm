;; task: How many issues currently carry a live lease? Return the count as an integer.
;; expect: 1
(define proj (payload (issue.lease_projection)))
(define leases (hash-ref proj "leases" (hash-ref proj "issues" '())))
(length leases)
