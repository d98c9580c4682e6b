;; task: List the ids of every issue that is ready to be worked on now. Return a list of id strings, in the order issue.ready gives them.
;; expect: ["bd-1","bd-13","bd-3","bd-4","bd-8","bd-10","bd-2","bd-16","bd-17","bd-20","bd-15","bd-18"]
(define e (issue.ready))
(if (accepted? e)
    (map (lambda (issue) (hash-ref issue "id"))
         (hash-ref (payload e) "issues"))
    (result-class e))
