;; task: For the blocked issues labelled "pipeline", report what each one is waiting on. Return a hash from blocked issue id to the sorted list of the ids it waits on.
;; expect: {"bd-15":["bd-14"],"bd-16":["bd-15"],"bd-17":["bd-16"],"bd-38":["bd-14"]}
(define e (issue.blocked (hash "filter" (hash "labels" (list "pipeline")))))
(define items (hash-ref (payload e) "items" '()))
(for/hash ([i items])
  (values (hash-ref i "id")
          (sort (for/list ([b (hash-ref i "blockers" '())])
                  (hash-ref b "dependsOnId"))
                string<?)))
