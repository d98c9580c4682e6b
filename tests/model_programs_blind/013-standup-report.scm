;; task: Write the stand-up text for work in progress: one line per in_progress issue, formatted "<id> P<priority> <assignee>: <title>", ordered by priority then by the number in the id, joined with newlines (no trailing newline). Return the string.
;; expect: "bd-4 P1 agent.mira: Offline banner flickers on reconnect\nbd-15 P1 agent.omar: Message queue cluster setup\nbd-27 P2 agent.mira: Accessibility audit of job screens"
(define wip (hash-ref (payload (issue.list (hash "status" "in_progress"))) "items"))

(define (num id) (string->number (substring id 3)))

(define ordered
  (sort wip
        (lambda (a b)
          (let ([pa (hash-ref a "priority")]
                [pb (hash-ref b "priority")])
            (or (< pa pb)
                (and (= pa pb)
                     (< (num (hash-ref a "id")) (num (hash-ref b "id")))))))))

(string-join
 (map (lambda (i)
        (format "~a P~a ~a: ~a"
                (hash-ref i "id")
                (hash-ref i "priority")
                (hash-ref i "assignee")
                (hash-ref i "title")))
      ordered)
 "\n")
