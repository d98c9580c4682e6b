;; task: Count the issues that are not closed, per label. Return a hash from label to the number of non-closed issues carrying it (only labels that appear on a non-closed issue).
;; expect: {"a11y":1,"auth":1,"backend":6,"billing":4,"cleanup":1,"crash":1,"docs":1,"i18n":2,"infra":3,"mobile":13,"notifications":2,"offline":4,"performance":1,"research":1,"scheduler":4,"security":2,"storage":1,"sync":2,"ui":4,"web":1}
;; assumes: issue.list with no arguments returns issues of every status (deferred included); the program drops closed ones itself
(define issues (hash-ref (payload (issue.list)) "items"))
(define active
  (filter (lambda (i) (not (equal? (hash-ref i "status") "closed"))) issues))
(for/fold ([acc (hash)]) ([i active])
  (foldl (lambda (lbl h) (hash-update h lbl add1 0))
         acc
         (hash-ref i "labels" '())))
