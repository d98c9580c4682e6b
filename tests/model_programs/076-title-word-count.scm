;; task: How many words are there in all ready issues' titles together (words separated by single spaces)? Return the total as an integer.
;; expect: 68
(define titles (map (lambda (i) (hash-ref i "title"))
                    (hash-ref (payload (issue.ready)) "issues")))
(define (word-count s) (length (string-split s " ")))
(define total (foldl + 0 (map word-count titles)))
(printf "~a titles, ~a words\n" (length titles) total)
total
