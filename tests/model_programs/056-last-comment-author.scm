;; task: Who wrote the most recent comment on bd-3? Return the author as a string.
;; expect: "agent.b"
(define comments (hash-ref (payload (issue.comments (hash "id" "bd-3"))) "comments"))
(if (null? comments)
    "nobody"
    (hash-ref (last comments) "author"))
