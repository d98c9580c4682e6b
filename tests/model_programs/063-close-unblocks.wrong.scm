;; task: The checkout flow design (bd-10) is finished: close it with the reason "design approved". Then list the ready issues labelled "checkout". Return their ids as a list of strings, in the order issue.ready gives them.
;; mistake: passes the issue id as the number 10 instead of the string "bd-10".
;; fix: id is a string issue id such as "bd-10", not a number.
(define closed (issue.close (hash "id" 10 "reason" "design approved")))
(unless (accepted? closed)
  (displayln (result-class closed)))
(define checkout (issue.ready (hash "filter" (hash "labels" (list "checkout")))))
(map (lambda (i) (hash-ref i "id")) (hash-ref (payload checkout) "issues"))
