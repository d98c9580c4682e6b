;; task: Triage: list the titles of open bugs (status open) with priority 0 or 1 that nobody is assigned to, highest priority first, then by id. Return a list of title strings.
;; expect: ["Login fails for SSO users with plus addresses","Crash when a job has no address","Timezone shown in UTC on job cards"]
;; assumes: an unassigned issue has no "assignee" key (or a false one) in list items
(define bugs
  (hash-ref (payload (issue.list (hash "status" "open" "issueType" "bug"))) "items"))

(let-values ([(urgent later) (partition (lambda (b) (<= (hash-ref b "priority") 1)) bugs)])
  (for/list ([b urgent]
             #:unless (hash-ref b "assignee" #f))
    (hash-ref b "title")))
