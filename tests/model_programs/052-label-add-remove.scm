;; task: On bd-12, remove the label "performance" and add the label "load-test". Return bd-12's labels afterwards as a list of strings in stored order.
;; expect: ["backend","payments","load-test"]
;; after: {"bd-12": {"labels": ["backend","payments","load-test"]}}
(let ([e (issue.label (hash "id" "bd-12"
                            "add" '("load-test")
                            "remove" '("performance")))])
  (cond
    [(rejected? e) (result-class e)]
    [else (hash-ref (payload e) "labels")]))
