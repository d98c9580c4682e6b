;; task: Write the standup blurb: a string whose first line is "Ready: N" (N the number of ready issues), followed by one line per top-3 ready issue (by priority, then id) formatted "- <id> [P<priority>] <title>", lines joined with a newline.
;; expect: "Ready: 13\n- bd-18 [P0] Late-arriving events dropped at window close\n- bd-28 [P0] Duplicate charge on retry after gateway timeout\n- bd-10 [P1] Usage metering pipeline v2"
(define p (payload (issue.ready)))
(define n (hash-ref p "count"))
(define sorted
  (sort (hash-ref p "items")
        (lambda (a b)
          (or (< (hash-ref a "priority") (hash-ref b "priority"))
              (and (= (hash-ref a "priority") (hash-ref b "priority"))
                   (string<? (hash-ref a "id") (hash-ref b "id")))))))
(define top (take sorted (min 3 (length sorted))))
(string-join
 (cons (format "Ready: ~a" n)
       (for/list ([i top])
         (format "- ~a [P~a] ~a" (hash-ref i "id") (hash-ref i "priority") (hash-ref i "title"))))
 "\n")
