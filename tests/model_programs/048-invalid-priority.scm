;; task: Someone asked to set bd-2's priority to 9. Try it; if the store refuses, return the failure class as a string, otherwise return "updated".
;; expect: "issue.invalid_priority"
;; after: {"bd-2": {"priority": 2}}
(define e (issue.update (hash "id" "bd-2" "priority" 9)))
(if (rejected? e) (result-class e) "updated")
