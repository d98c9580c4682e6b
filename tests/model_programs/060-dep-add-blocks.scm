;; task: The legacy coupon removal (bd-18) must wait until the API keys are rotated (bd-4). Record that bd-4 blocks bd-18, then return whether bd-18 is still ready, as a boolean.
;; expect: false
(define e (dep.add (hash "id" "bd-18" "dependsOn" "bd-4" "type" "blocks")))
(displayln (result-class e))
(define ready-ids
  (map (lambda (i) (hash-ref i "id")) (hash-ref (payload (issue.ready)) "issues")))
(if (member "bd-18" ready-ids) #t #f)
