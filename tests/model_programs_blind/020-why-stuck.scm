;; task: Look at bd-14 and report why it is stuck: return a hash with "status", "notes" and "dependsOn" (the ids bd-14 depends on, any edge type, in stored order).
;; expect: {"status":"blocked","notes":"Waiting for the cluster","dependsOn":["bd-15"]}
;; assumes: issue.show's payload holds the issue under "issue", with beads' "dependencies" records carrying "depends_on_id"
(define iss (hash-ref (payload (issue.show (hash "id" "bd-14"))) "issue"))
(hash "status" (hash-ref iss "status")
      "notes" (hash-ref iss "notes")
      "dependsOn" (map (lambda (d) (hash-ref d "depends_on_id"))
                       (hash-ref iss "dependencies" '())))
