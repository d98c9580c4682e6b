;; task: Someone asks to make bd-8 depend on bd-7 with a blocks edge. bd-7 already waits on bd-8, so this would create a cycle. Try it and return true if the store refused the edge, false if it accepted it.
;; expect: true
(let ([e (dep.add (hash "id" "bd-8" "dependsOn" "bd-7" "type" "blocks"))])
  (when (rejected? e)
    (printf "refused: ~a\n" (result-class e)))
  (rejected? e))
