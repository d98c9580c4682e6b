;; task: Write a short report of the three most urgent ready issues, one line each in the form "<id> [P<priority>] <title>", lines joined with a newline (no trailing newline). Return the report string.
;; expect: "bd-1 [P0] Checkout page crashes on empty cart\nbd-13 [P0] Password reset email has a broken link\nbd-3 [P1] Payment webhook retries forever"
(define issues (hash-ref (payload (issue.ready)) "issues"))

(define (line i)
  (format "~a [P~a] ~a" (hash-ref i "id") (hash-ref i "priority") (hash-ref i "title")))

(define top3 (list (first issues) (second issues) (third issues)))
(define report (string-join (map line top3) "\n"))
(display report)
report
