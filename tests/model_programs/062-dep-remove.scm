;; task: bd-11 no longer has to wait for bd-10. Remove the dependency of bd-11 on bd-10 and return whether bd-11 is now ready, as a boolean.
;; expect: true
(define r (dep.remove (hash "id" "bd-11" "dependsOn" "bd-10")))
(displayln (result-class r))
(define ids (map (lambda (i) (hash-ref i "id"))
                 (hash-ref (payload (issue.ready)) "issues")))
(not (not (member "bd-11" ids)))
