;; task: How is the ready work spread across priorities? Return a hash with keys "P0" through "P4" giving the number of ready issues at each priority (0 when none).
;; expect: {"P0":2,"P1":6,"P2":4,"P3":4,"P4":1}
;; assumes: only `blocks` edges to non-closed issues block (parent-child does not), as in bd ready
(define items (hash-ref (payload (issue.ready)) "items"))
(for/fold ([acc (hash "P0" 0 "P1" 0 "P2" 0 "P3" 0 "P4" 0)])
          ([it items])
  (hash-update acc (format "P~a" (hash-ref it "priority")) add1))
