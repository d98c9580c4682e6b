;; task: As agent.qa, comment "reproduced with seed 42" on bd-16. Return how many comments bd-16 has afterwards, as an integer.
;; expect: 1
(issue.comment (hash "id" "bd-16" "author" "agent.qa" "text" "reproduced with seed 42"))
(length (hash-ref (payload (issue.comments (hash "id" "bd-16"))) "comments"))
