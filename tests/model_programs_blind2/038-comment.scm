;; task: As agent.alpha, comment on bd-22: "Root cause: banker's rounding applied before FX conversion." Then return {"count": the number of comments on bd-22 now, "last": the author of the last one}.
;; expect: {"count":2,"last":"agent.alpha"}
(define c (issue.comment (hash "id" "bd-22"
                               "author" "agent.alpha"
                               "text" "Root cause: banker's rounding applied before FX conversion.")))
(define cs (payload (issue.comments (hash "id" "bd-22"))))
(define comments (hash-ref cs "comments"))
(hash "count" (length comments)
      "last" (hash-ref (last comments) "author"))
