;; task: Read the discussion on bd-28. Return {"count": number of comments, "authors": the comment authors in comment order}.
;; expect: {"count":2,"authors":["priya.nair","agent.pay"]}
(define c (payload (issue.comments (hash "id" "bd-28"))))
(hash "count" (hash-ref c "count")
      "authors" (for/list ([cm (hash-ref c "comments" '())])
                  (hash-ref cm "author")))
