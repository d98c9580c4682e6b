;; task: In the feature ledger, record feature "feat-offline-cache" as in progress for bd-2 with summary "SQLite cache behind the job list"; then ask for the next unfinished feature and return its feature id.
;; expect: "feat-offline-cache"
;; assumes: "in_progress" is an accepted feature status; harness.feature.next's payload holds the feature under "feature" with "featureId"
(harness.feature.write (hash "featureId" "feat-offline-cache"
                             "status" "in_progress"
                             "issueId" "bd-2"
                             "summary" "SQLite cache behind the job list"))
(hash-ref* (payload (harness.feature.next)) "feature" "featureId")
