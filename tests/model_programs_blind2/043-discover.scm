;; task: While working on bd-14 you found that consumer rebalances storm during deploys. Record it as a discovered issue: id "bd-53", title "Consumer rebalance storms during deploys", type bug, priority 1, labels pipeline and kafka. Return {"issueId", "dependsOnId", "type"} of the link the discovery made, plus "ready": whether bd-53 is ready.
;; expect: {"issueId":"bd-53","dependsOnId":"bd-14","type":"discovered-from","ready":true}
;; after: {"bd-53": {"title": "Consumer rebalance storms during deploys", "status": "open", "priority": 1, "issue_type": "bug", "labels": ["pipeline", "kafka"]}}
;; assumes: issue.discover honours an explicit "id"; the link points from the new issue to the one being worked on
(define e (issue.discover (hash "parentId" "bd-14"
                                "id" "bd-53"
                                "title" "Consumer rebalance storms during deploys"
                                "issueType" "bug"
                                "priority" 1
                                "labels" '("pipeline" "kafka"))))
(define dep (hash-ref (payload e) "dependency"))
(define ready (map (lambda (i) (hash-ref i "id")) (hash-ref (payload (issue.ready)) "items")))
(hash "issueId" (hash-ref dep "issueId")
      "dependsOnId" (hash-ref dep "dependsOnId")
      "type" (hash-ref dep "type")
      "ready" (and (member "bd-53" ready) #t))
