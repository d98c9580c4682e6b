;; task: Which ready issues are NOT labelled "backend"? Return their ids as a list of strings, in the order issue.ready gives them.
;; expect: ["bd-1","bd-4","bd-10","bd-2","bd-20","bd-15"]
(define e (issue.ready (hash "filter" (hash "labelsNone" (list "backend")))))
(if (accepted? e)
    (map (lambda (i) (hash-ref i "id")) (hash-ref (payload e) "issues"))
    (let* ([all (hash-ref (payload (issue.ready)) "issues")]
           [keep (filter (lambda (i) (not (member "backend" (hash-ref i "labels" '())))) all)])
      (map (lambda (i) (hash-ref i "id")) keep)))
