;; task: Across all issues whose status is open (blocked or not), count how many carry each label. Return a hash from label to count.
;; expect: {"a11y":1,"auth":1,"backend":8,"checkout":4,"database":1,"design":1,"docs":1,"frontend":6,"infra":1,"orders":2,"payments":2,"performance":1,"search":1,"security":2,"testing":1}
(define e (issue.list (hash "status" "open")))
(define counts (hash))
(for-each
 (lambda (issue)
   (for-each
    (lambda (label)
      (set! counts (hash-set counts label (+ 1 (hash-ref counts label 0)))))
    (hash-ref issue "labels" '())))
 (hash-ref (payload e) "issues"))
counts
