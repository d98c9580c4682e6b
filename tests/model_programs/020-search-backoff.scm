;; task: Someone wrote about "backoff" somewhere in the queue (titles, descriptions, notes or comments). Which issues? Return their ids as a list of strings, best match first.
;; expect: ["bd-3"]
(define res (issue.search (hash "query" "backoff")))
(unless (accepted? res)
  (display "search failed: ")
  (displayln (result-class res)))
(map (lambda (r) (hash-ref r "id"))
     (hash-ref (payload res) "results" (hash-ref (payload res) "issues" '())))
