;; task: Start the feature ledger: write feature "feat-dedup" with status in_progress for issue bd-15 (summary "Deduplicate usage events"), then ask for the next unfinished feature. Return {"next": nextFeatureId, "count": featureCount, "complete": closureComplete}.
;; expect: {"next":"feat-dedup","count":1,"complete":false}
;; assumes: "in_progress" is an accepted feature status and counts as unfinished
(define w (harness.feature.write (hash "featureId" "feat-dedup"
                                       "status" "in_progress"
                                       "issueId" "bd-15"
                                       "summary" "Deduplicate usage events")))
(unless (accepted? w)
  (error "feature write refused" (result-class w)))
(define n (payload (harness.feature.next)))
(hash "next" (hash-ref n "nextFeatureId")
      "count" (hash-ref n "featureCount")
      "complete" (hash-ref n "closureComplete"))
