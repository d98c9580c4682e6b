;; task: While working on bd-15 you found that the queue cluster needs TLS. Record it as an issue discovered from bd-15: a bug titled "Queue cluster needs TLS between nodes", priority 1, labels "infra" and "security". Return a hash with "title" (the new issue's title, from issue.show) and "from" (the id its discovered-from edge points to).
;; expect: {"title":"Queue cluster needs TLS between nodes","from":"bd-15"}
;; assumes: issue.discover's payload holds the new issue under "issue"; issue.show gives beads' dependency records with "type" and "depends_on_id"
(define d (issue.discover (hash "parentId" "bd-15"
                                "title" "Queue cluster needs TLS between nodes"
                                "issueType" "bug"
                                "priority" 1
                                "labels" (list "infra" "security"))))
(define new-id (hash-ref* (payload d) "issue" "id"))
(define shown (hash-ref (payload (issue.show (hash "id" new-id))) "issue"))
(define edge
  (find (lambda (dep) (equal? (hash-ref dep "type") "discovered-from"))
        (hash-ref shown "dependencies")))
(hash "title" (hash-ref shown "title")
      "from" (hash-ref edge "depends_on_id"))
