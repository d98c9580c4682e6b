;; task: Take the first word of each ready issue's title. Return them as a list of strings, in the order issue.ready gives the issues.
;; expect: ["Checkout","Password","Payment","Rotate","Migrate","Design","Add","Flaky","Document","Accessibility","Dark","Remove"]
(define ready (hash-ref (payload (issue.ready)) "issues"))
(for/list ([i ready])
  (car (string-split (hash-ref i "title") " ")))
