;; task: Write a short report of the three most urgent ready issues, one line each in the form "<id> [P<priority>] <title>", lines joined with a newline (no trailing newline). Return the report string.
;; mistake: format with a C-style ~d directive, which Racket's format does not have.
;; fix: the error must say ~d is unknown and name ~a.
;; added: after the fixes, by the tusk session that made them (the 22 above were written before)
(define items (take (hash-ref (payload (issue.ready)) "items") 3))
(string-join
  (map (lambda (i) (format "~a [P~d] ~a" (hash-ref i "id") (hash-ref i "priority") (hash-ref i "title"))) items)
  "\n")
