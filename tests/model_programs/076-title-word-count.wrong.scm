;; task: How many words are there in all ready issues' titles together (words separated by single spaces)? Return the total as an integer.
;; mistake: string-split given a character #\space as its separator instead of the string " ".
;; fix: the error must say the separator must be a string.
;; added: after the fixes, by the tusk session that made them (the 22 above were written before)
(define titles (map (lambda (i) (hash-ref i "title")) (hash-ref (payload (issue.ready)) "items")))
(apply + (map (lambda (t) (length (string-split t #\space))) titles))
