(let ([a 10])
  (define foo 100)
  (+ foo a))

foo
