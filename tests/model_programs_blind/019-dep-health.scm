;; task: Health check of the dependency graph over all issues: return a hash with "cycles" (number of dependency cycles), "blockingCycles" (number of blocking cycles) and "dangling" (number of dangling edges).
;; expect: {"cycles":0,"blockingCycles":0,"dangling":0}
;; assumes: dep.diagnostics reports "cycles", "blockingCycles" and "danglingEdges" as lists, and graphScope "all" covers every issue
(define d (payload (dep.diagnostics (hash "graphScope" "all"))))
(hash "cycles" (length (hash-ref d "cycles" '()))
      "blockingCycles" (length (hash-ref d "blockingCycles" '()))
      "dangling" (length (hash-ref d "danglingEdges" '())))
