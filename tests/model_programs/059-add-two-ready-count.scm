;; task: Add two new tasks, "Upgrade the TLS library" and "Archive old invoices" (both priority 2, type task), then return the number of ready issues as an integer.
;; expect: 14
(for-each
 (lambda (title)
   (let ([e (issue.add (hash "title" title "issueType" "task" "priority" 2))])
     (displayln (string-append title ": " (result-class e)))))
 '("Upgrade the TLS library" "Archive old invoices"))

(length (hash-ref (payload (issue.ready)) "issues"))
