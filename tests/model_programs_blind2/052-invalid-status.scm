;; task: A worker wants to mark bd-34 "done" via issue.update. That status does not exist; when the update is refused, close the issue instead (reason "fixed timezone handling"). Return {"update": the update's result class, "closed": whether the close was accepted}.
;; expect: {"update":"issue.invalid_status","closed":true}
;; after: {"bd-34": {"status": "closed", "close_reason": "fixed timezone handling"}}
(define u (issue.update (hash "id" "bd-34" "status" "done")))
(define closed?
  (cond
    [(accepted? u) #f]
    [else
     (define c (issue.close (hash "id" "bd-34" "reason" "fixed timezone handling")))
     (accepted? c)]))
(hash "update" (result-class u) "closed" closed?)
