;; task: Read the discussion on bd-3. Return the comment texts as a list of strings, oldest first.
;; mistake: reads the key "comment" (singular) from the issue.comments payload, which has no such key.
;; fix: the payload has no key "comment"; the error must name the keys the payload does have (the comments list's key) so the model can read that one.
(define e (issue.comments (hash "id" "bd-3")))
(map (lambda (c) (hash-ref c "text"))
     (hash-ref (payload e) "comment"))
