;; task: Mark bd-26 as "done". If that status is refused, close the issue instead with reason "docs published". Return a hash with "refused" (the refusal class, or #f if the update was accepted) and "status" (bd-26's status afterwards, from issue.show).
;; expect: {"refused":"issue.invalid_status","status":"closed"}
;; after: {"bd-26": {"status": "closed", "close_reason": "docs published"}}
(define e (issue.update (hash "id" "bd-26" "status" "done")))
(define refused
  (match (result-class e)
    ["accepted" #f]
    [cls
     (issue.close (hash "id" "bd-26" "reason" "docs published"))
     cls]))
(hash "refused" refused
      "status" (hash-ref* (payload (issue.show (hash "id" "bd-26"))) "issue" "status"))
