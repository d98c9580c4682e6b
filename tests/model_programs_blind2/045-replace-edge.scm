;; task: The load test (bd-38) can run against the old consumer; turn its blocks edge on bd-14 into a related edge. Return {"previousType": the edge's type before, "changed": whether it changed, "ready": whether bd-38 is ready now}.
;; expect: {"previousType":"blocks","changed":true,"ready":true}
(define e (dep.replace (hash "issueId" "bd-38" "dependsOnId" "bd-14" "type" "related")))
(define p (payload e))
(define ready-ids (map (lambda (i) (hash-ref i "id")) (hash-ref (payload (issue.ready)) "items")))
(hash "previousType" (hash-ref p "previousType")
      "changed" (hash-ref p "changed")
      "ready" (if (member "bd-38" ready-ids) #t #f))
