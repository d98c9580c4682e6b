;; task: A payments worker asks what it could pick up. Return the ids of ready issues labelled "payments", ordered by priority then id.
;; expect: ["bd-28","bd-12","bd-25"]
(define e (issue.ready (hash "filter" (hash "labels" '("payments")))))
(define items (hash-ref (payload e) "items"))
(map (lambda (i) (hash-ref i "id"))
     (sort items
           (lambda (a b)
             (match* ((hash-ref a "priority") (hash-ref b "priority"))
               [(pa pb) #:when (= pa pb) (string<? (hash-ref a "id") (hash-ref b "id"))]
               [(pa pb) (< pa pb)]))))
