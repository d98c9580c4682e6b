;; task: Which ready issues carry the label "ui"? Return their titles sorted alphabetically.
;; expect: ["Dark mode","Notification preferences screen","Timezone shown in UTC on job cards"]
(define e (issue.ready (hash "filter" (hash "labels" '("ui")))))
(sort (map (lambda (i) (hash-ref i "title"))
           (hash-ref (payload e) "items"))
      string<?)
