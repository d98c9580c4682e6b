;; task: Route work with this table: frontend → agent.ui, backend → agent.b, infra → agent.ops. For each of the first four ready issues (in issue.ready order), pick the worker for the first of its labels (in stored label order) that has a route, or "unrouted" if none does. Return the four worker names as a list of strings, in issue.ready order.
;; expect: ["agent.ui","agent.b","agent.b","agent.ops"]
(define routes '(("frontend" . "agent.ui")
                 ("backend" . "agent.b")
                 ("infra" . "agent.ops")))

(define (route labels)
  (cond
    [(null? labels) "unrouted"]
    [(assoc (first labels) routes) => cdr]
    [else (route (rest labels))]))

(define issues (hash-ref (payload (issue.ready)) "issues"))
(define first-four (take issues 4))
(map (lambda (i) (route (hash-ref i "labels" '()))) first-four)
