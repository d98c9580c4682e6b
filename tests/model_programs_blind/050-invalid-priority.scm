;; task: The requester wants bd-26 at priority 9. Try that; if it is refused, fall back to the lowest valid priority instead. Return a hash with "refused" (the refusal class, or #f if it was accepted) and "priority" (bd-26's priority afterwards, from issue.show).
;; expect: {"refused":"issue.invalid_priority","priority":4}
;; after: {"bd-26": {"priority": 4}}
(define first-try (issue.update (hash "id" "bd-26" "priority" 9)))
(define refused (if (rejected? first-try) (result-class first-try) #f))
(when refused
  (issue.update (hash "id" "bd-26" "priority" 4)))
(hash "refused" refused
      "priority" (hash-ref* (payload (issue.show (hash "id" "bd-26"))) "issue" "priority"))
