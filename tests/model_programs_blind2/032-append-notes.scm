;; task: Add the line "Rebalance handling merged." to bd-14's working notes, keeping what is there (existing notes, a newline, then the new line). Return the notes as stored afterwards.
;; expect: "Consumer group lag under 2s in staging; batching 500 events per poll.\nRebalance handling merged."
;; after: {"bd-14": {"notes": "Consumer group lag under 2s in staging; batching 500 events per poll.\nRebalance handling merged.", "status": "in_progress"}}
(define (notes-of id)
  (hash-ref* (payload (issue.show (hash "id" id))) "issue" "notes"))
(define old (or (notes-of "bd-14") ""))
(define new-notes
  (if (string=? old "")
      "Rebalance handling merged."
      (string-append old "\n" "Rebalance handling merged.")))
(define u (issue.update (hash "id" "bd-14" "notes" new-notes)))
(if (accepted? u)
    (notes-of "bd-14")
    (result-class u))
