;; task: Check lease health across the queue. Return a hash with "stale" and "contended": the number of stale leases and the number of contended leases.
;; expect: {"stale":0,"contended":0}
;; assumes: the seed store holds no lease records, so in_progress issues with an assignee but no lease are neither stale nor contended; the projection reports counts as "staleCount" and "contendedCount"
(define p (payload (issue.lease_projection)))
(hash "stale" (hash-ref p "staleCount")
      "contended" (hash-ref p "contendedCount"))
