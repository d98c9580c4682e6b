;; task: How far along is the epic bd-1 ("Offline mode for the technician app")? Return a hash with "total" (its direct children, any status), "closed" (how many of them are closed) and "percent" (closed*100/total, rounded down to an integer).
;; expect: {"total":5,"closed":1,"percent":20}
;; assumes: the filter key "parent" matches an epic's direct children through their parent-child edges, and issue.list without a status lists closed issues too (like bd list --all)
(define kids
  (hash-ref (payload (issue.list (hash "filter" (hash "parent" "bd-1")))) "items"))
(define total (length kids))
(define done (count (lambda (k) (string=? (hash-ref k "status") "closed")) kids))
(hash "total" total
      "closed" done
      "percent" (quotient (* done 100) total))
