;; task: The Spanish translation (bd-20) needs a glossary first. Create a task titled "Spanish glossary for field terms" (priority 2, label "i18n") and make bd-20 depend on it with a blocks edge. Return how many open blockers bd-20 has afterwards.
;; expect: 2
;; assumes: issue.add's payload holds the new issue under "issue"; a new issue starts open; issue.blocked gives each item's open blockers under "blockers"
(define added (issue.add (hash "title" "Spanish glossary for field terms"
                               "issueType" "task"
                               "priority" 2
                               "labels" (list "i18n"))))
(define new-id (hash-ref* (payload added) "issue" "id"))
(dep.add (hash "issueId" "bd-20" "dependsOnId" new-id "type" "blocks"))
(define row
  (findf (lambda (i) (equal? (hash-ref i "id") "bd-20"))
         (hash-ref (payload (issue.blocked)) "items")))
(length (hash-ref row "blockers"))
