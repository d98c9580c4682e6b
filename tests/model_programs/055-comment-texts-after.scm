;; task: As agent.a, add the comment "Backoff added in PR 88" to bd-3, then return all of bd-3's comment texts as a list of strings, oldest first.
;; expect: ["Seen again in production at 02:00","Retry backoff is missing","Backoff added in PR 88"]
(define c (issue.comment (hash "id" "bd-3" "author" "agent.a" "text" "Backoff added in PR 88")))
(displayln (result-class c))
(define comments (hash-ref (payload (issue.comments (hash "id" "bd-3"))) "comments"))
(map (lambda (c) (hash-ref c "text")) comments)
