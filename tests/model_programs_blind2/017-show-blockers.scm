;; task: Why can't bd-37 start? Return {"status": its status, "blockers": a list of {"on": id waited on, "status": that issue's status}}.
;; expect: {"status":"open","blockers":[{"on":"bd-11","status":"open"}]}
(define s (payload (issue.show (hash "id" "bd-37"))))
(hash "status" (hash-ref* s "issue" "status")
      "blockers" (for/list ([b (hash-ref s "blockers" '())])
                   (hash "on" (hash-ref b "dependsOnId")
                         "status" (hash-ref b "blockerStatus"))))
