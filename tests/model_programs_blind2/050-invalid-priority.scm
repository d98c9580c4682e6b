;; task: A planner wants bd-32 at "priority 9 (lowest)". Try priority 9; when it is refused, fall back to the lowest valid priority. Return {"first": the result class of the first update, "priority": bd-32's priority afterwards}.
;; expect: {"first":"issue.invalid_priority","priority":4}
;; after: {"bd-32": {"priority": 4}}
(define first-try (issue.update (hash "id" "bd-32" "priority" 9)))
(define final
  (if (accepted? first-try)
      9
      (let ([retry (issue.update (hash "id" "bd-32" "priority" 4))])
        (if (accepted? retry) 4 'unchanged))))
(define now (hash-ref* (payload (issue.show (hash "id" "bd-32"))) "issue" "priority"))
(hash "first" (result-class first-try)
      "priority" now)
