;; task: Find the issues that mention "cart". Return their ids as a list of strings sorted alphabetically.
;; expect: ["bd-1","bd-16"]
(define e (issue.search (hash "query" "cart")))
(define hits (hash-ref (payload e) "issues"))
(sort (map (lambda (h) (hash-ref h "id")) hits) string<?)
