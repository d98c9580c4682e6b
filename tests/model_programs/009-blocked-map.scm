;; task: Which open issues are waiting on a blocker? Return a hash from each blocked issue's id to the list of ids of the issues blocking it (in any order within a list; each list here has one element).
;; expect: {"bd-11":["bd-10"],"bd-12":["bd-3"],"bd-7":["bd-8"]}
(define e (issue.blocked))
(define result (hash))
(when (accepted? e)
  (for-each
   (lambda (entry)
     (define id (hash-ref entry "id"))
     (define blockers
       (map (lambda (b) (if (hash? b) (hash-ref b "id") b))
            (hash-ref entry "blockers" '())))
     (set! result (hash-set result id blockers)))
   (hash-ref (payload e) "issues")))
result
