;; task: Health check of the dependency graph: return true when there are no dependency cycles and no dangling edges, false otherwise.
;; expect: true
(define d (dep.diagnostics))
(if (rejected? d)
    #f
    (let ([p (payload d)])
      (and (null? (hash-ref p "cycles" '()))
           (null? (hash-ref p "blockingCycles" '()))
           (null? (hash-ref p "danglingEdges" '())))))
