;; task: Check the dependency graph's health. Return {"hasCycle": whether the integrity check found a cycle, "dangling": the number of dangling edges}.
;; expect: {"hasCycle":false,"dangling":0}
(define d (payload (dep.diagnostics (hash))))
(hash "hasCycle" (hash-ref* d "integrity" "hasCycle")
      "dangling" (length (hash-ref d "danglingEdges" '())))
