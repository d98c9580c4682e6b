;; task: Are any leases stale or contended? Return {"stale": stale lease count, "contended": contended lease count} from the lease projection.
;; expect: {"stale":0,"contended":0}
(define p (payload (issue.lease_projection (hash))))
(hash "stale" (hash-ref* p "projection" "staleCount")
      "contended" (hash-ref* p "projection" "contendedCount"))
