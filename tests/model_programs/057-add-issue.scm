;; task: File a new bug "Fix typo in footer" with priority 3 and the label "frontend". Then read it back and return a hash {"title": <title>, "priority": <integer>, "type": <issue type>} from the stored issue.
;; expect: {"title":"Fix typo in footer","priority":3,"type":"bug"}
(define e (issue.add (hash "title" "Fix typo in footer"
                           "issueType" "bug"
                           "priority" 3
                           "labels" (list "frontend"))))
(define new-id (hash-ref* (payload e) "issue" "id"))
(printf "created ~a\n" new-id)
(define issue (hash-ref (payload (issue.show (hash "id" new-id))) "issue"))
(hash "title" (hash-ref issue "title")
      "priority" (hash-ref issue "priority")
      "type" (hash-ref issue "issue_type"))
