;; task: What does bd-7 depend on? Return the list of ids of the issues bd-7 has a dependency on (of any type), in the order they are stored.
;; expect: ["bd-8"]
(let* ([e (issue.show (hash "id" "bd-7"))]
       [deps (or (hash-ref* (payload e) "issue" "dependencies") '())])
  (map (lambda (d) (hash-ref d "depends_on_id")) deps))
