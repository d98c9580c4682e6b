;; task: Among the ready issues, which one has the longest title (counting characters)? Return its id as a string.
;; expect: "bd-8"
(define issues (hash-ref (payload (issue.ready)) "issues"))

(define best
  (foldl (lambda (i best)
           (if (> (string-length (hash-ref i "title"))
                  (string-length (hash-ref best "title")))
               i
               best))
         (car issues)
         (cdr issues)))

(hash-ref best "id")
