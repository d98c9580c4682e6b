;; task: Give a one-glance summary of the queue: return {"issues": total issue count, "ready": ready count, "inProgress": in-progress count, "oldestReady": id of the oldest ready issue}.
;; expect: {"issues":34,"ready":13,"inProgress":3,"oldestReady":"bd-32"}
(define s (payload (issue.stats)))
(hash "issues" (hash-ref s "issueCount")
      "ready" (hash-ref s "readyCount")
      "inProgress" (hash-ref s "inProgressCount")
      "oldestReady" (hash-ref* s "oldestReady" "id"))
