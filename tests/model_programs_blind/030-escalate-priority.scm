;; task: bd-2 is now urgent: raise it to priority 0 and set its notes to "Customer escalation: needed for the pilot". Return the priority the update reports.
;; expect: 0
;; after: {"bd-2": {"priority": 0, "notes": "Customer escalation: needed for the pilot"}}
(define e (issue.update (hash "id" "bd-2"
                              "priority" 0
                              "notes" "Customer escalation: needed for the pilot")))
(hash-ref* (payload e) "issue" "priority")
