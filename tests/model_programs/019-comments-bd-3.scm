;; task: Read the discussion on bd-3. Return the comment texts as a list of strings, oldest first.
;; expect: ["Seen again in production at 02:00","Retry backoff is missing"]
(define e (issue.comments (hash "id" "bd-3")))
(map (lambda (c) (hash-ref c "text"))
     (hash-ref (payload e) "comments"))
