;;; tusk prelude for the steel.sandbox.v1 profile.
;;;
;;; Compiled once into the prepared engine; every program sees these names.
;;; The syntax forms are adapted from steel-core's stdlib.scm (MIT OR Apache-2.0),
;;; rewritten on plain syntax-rules because the sandbox engine has no kernel
;;; (no procedural macros, hence no compile-time route to the host).

;; ---------------------------------------------------------------- syntax

(define-syntax or
  (syntax-rules ()
    [(or) #f]
    [(or x) x]
    [(or x y) (let ([z x]) (if z z y))]
    [(or x y ...) (or x (or y ...))]))

(define-syntax and
  (syntax-rules ()
    [(and) #t]
    [(and x) x]
    [(and x y) (if x y #f)]
    [(and x y ...) (and x (and y ...))]))

; A body of several forms gets a scope of its own, so that it may start
; with definitions (Racket's `when`, `unless` and `cond` clauses are
; internal-definition contexts; a `begin` in an expression is not).
(define-syntax when
  (syntax-rules ()
    [(when a) (if a (void) (void))]
    [(when a b) (if a b (void))]
    [(when a b c ...) (if a (let () b c ...) (void))]))

(define-syntax unless
  (syntax-rules ()
    [(unless a) (if a (void) (void))]
    [(unless a b) (if a (void) b)]
    [(unless a b c ...) (if a (void) (let () b c ...))]))

(define-syntax cond
  (syntax-rules (else =>)
    [(cond [else e1]) e1]
    [(cond [else e1 e2 ...]) (let () e1 e2 ...)]
    [(cond [e1 => f]) (let ([res e1]) (if res (f res) (void)))]
    [(cond [e1 => f] c1 ...) (let ([res e1]) (if res (f res) (cond c1 ...)))]
    [(cond [e1]) e1]
    [(cond [e1] c1 ...) (or e1 (cond c1 ...))]
    [(cond [e1 e2]) (if e1 e2 (void))]
    [(cond [e1 e2 e3 ...]) (if e1 (let () e2 e3 ...) (void))]
    [(cond [e1 e2] c1 ...) (if e1 e2 (cond c1 ...))]
    [(cond [e1 e2 e3 ...] c1 ...) (if e1 (let () e2 e3 ...) (cond c1 ...))]))

(define-syntax case
  (syntax-rules (else)
    [(case (key ...) clauses ...) (let ([atom-key (key ...)]) (case atom-key clauses ...))]
    [(case key [else r1 r2 ...]) (begin r1 r2 ...)]
    [(case key [(atoms ...) r1 r2 ...])
     (if (member key '(atoms ...)) (begin r1 r2 ...) (void))]
    [(case key [(atoms ...) r1 r2 ...] clause clauses ...)
     (if (member key '(atoms ...)) (begin r1 r2 ...) (case key clause clauses ...))]))

(define-syntax let*
  (syntax-rules ()
    [(let* () body ...) ((lambda () body ...))]
    [(let* ([var val] rest ...) body ...) ((lambda (var) (let* (rest ...) body ...)) val)]))

(define-syntax tusk-letrec-helper
  (syntax-rules ()
    [(tusk-letrec-helper () body ...) (begin body ...)]
    [(tusk-letrec-helper ((var val) rest ...) body ...)
     (begin (define var val) (tusk-letrec-helper (rest ...) body ...))]))

(define-syntax letrec*
  (syntax-rules ()
    [(letrec* bindings body ...) ((lambda () (tusk-letrec-helper bindings body ...)))]))

(define-syntax letrec
  (syntax-rules ()
    [(letrec bindings body ...) ((lambda () (tusk-letrec-helper bindings body ...)))]))

(define-syntax do
  (syntax-rules ()
    [(do ((var init step ...) ...) (test expr ...) command ...)
     (letrec* ([loop (lambda (var ...)
                       (if test
                           (begin (void) expr ...)
                           (begin command ... (loop (do "step" var step ...) ...))))])
       (loop init ...))]
    [(do "step" x) x]
    [(do "step" x y) y]))

(define-syntax quasiquote
  (syntax-rules (unquote unquote-splicing #%unquote #%unquote-splicing #%quote)
    [(quasiquote ((quote x) xs ...)) (cons (list 'quote (quasiquote x)) (quasiquote (xs ...)))]
    [(quasiquote (quote x)) (list 'quote (quasiquote x))]
    [(quasiquote ((unquote x) xs ...)) (cons (list 'unquote (quasiquote x)) (quasiquote (xs ...)))]
    [(quasiquote (unquote x)) (list 'unquote (quasiquote x))]
    [(quasiquote ((#%unquote x) xs ...)) (cons x (quasiquote (xs ...)))]
    [(quasiquote (#%unquote x)) x]
    [(quasiquote ((#%unquote-splicing x))) (append x '())]
    [(quasiquote ((#%unquote-splicing x) xs ...)) (append x (quasiquote (xs ...)))]
    [(quasiquote (x xs ...)) (cons (quasiquote x) (quasiquote (xs ...)))]
    [(quasiquote x) 'x]))

;; (with-handler handler body ...): runs body; an error raised inside goes to
;; (handler err) and its value becomes the form's value.
(define (call-with-handler handler thunk)
  (call/cc
   (lambda (k)
     (call-with-exception-handler (lambda (err) (k (handler err))) thunk))))

(define-syntax with-handler
  (syntax-rules ()
    [(with-handler handler body ...) (call-with-handler handler (lambda () body ...))]))

(define (raise obj) (error obj))

;; ---------------------------------------------------------------- guarded allocation
;; Primitives whose result can be far larger than their arguments ask the host
;; for the memory first (scheme_eval.memory_exceeded ends the run otherwise).

(define (make-vector n . fill)
  (tusk-reserve! (* (tusk-int n) 16))
  (apply tusk-raw-make-vector n fill))

(define (make-string n . fill)
  (tusk-reserve! (* (tusk-int n) 4))
  (apply tusk-raw-make-string n fill))

(define (string-replace s from to)
  (tusk-reserve! (tusk-replace-bound s from to))
  (tusk-raw-string-replace s from to))

(define (expt base power)
  (tusk-reserve! (tusk-expt-bound base power))
  (tusk-raw-expt base power))

(define (arithmetic-shift n k)
  (tusk-reserve! (if (> k 0) (quotient k 8) 0))
  (tusk-raw-arithmetic-shift n k))

(define (range . args)
  (tusk-reserve! (* 16 (tusk-range-count args)))
  (apply tusk-raw-range args))

;; ---------------------------------------------------------------- lists

(define (caar p) (car (car p)))
(define (cadr p) (car (cdr p)))
(define (cdar p) (cdr (car p)))
(define (cddr p) (cdr (cdr p)))
(define (caddr p) (car (cdr (cdr p))))
(define (cdddr p) (cdr (cdr (cdr p))))
(define (cadddr p) (car (cdr (cdr (cdr p)))))

;; The list procedures use plain `if` and top-level `tusk-` helpers rather
;; than `cond` and internal defines: the prepared engine compiles them once
;; per host process, and those forms cost the most to compile.
(define (tusk-map1 f lst acc)
  (if (null? lst) (reverse acc) (tusk-map1 f (cdr lst) (cons (f (car lst)) acc))))
(define (tusk-any-null? ls) (if (null? ls) #f (if (null? (car ls)) #t (tusk-any-null? (cdr ls)))))
(define (tusk-cars ls acc) (if (null? ls) (reverse acc) (tusk-cars (cdr ls) (cons (car (car ls)) acc))))
(define (tusk-cdrs ls acc) (if (null? ls) (reverse acc) (tusk-cdrs (cdr ls) (cons (cdr (car ls)) acc))))
(define (tusk-map-n f ls acc)
  (if (tusk-any-null? ls)
      (reverse acc)
      (tusk-map-n f (tusk-cdrs ls '()) (cons (apply f (tusk-cars ls '())) acc))))

(define (map f lst . more)
  (if (null? more) (tusk-map1 f lst '()) (tusk-map-n f (cons lst more) '())))

(define (tusk-for-each1 f lst)
  (if (null? lst) (void) (begin (f (car lst)) (tusk-for-each1 f (cdr lst)))))
(define (for-each f lst . more)
  (if (null? more) (tusk-for-each1 f lst) (begin (apply map f lst more) (void))))

(define (tusk-filter pred lst acc)
  (if (null? lst)
      (reverse acc)
      (tusk-filter pred (cdr lst) (if (pred (car lst)) (cons (car lst) acc) acc))))
(define (filter pred lst) (tusk-filter pred lst '()))

(define (remove pred lst) (filter (lambda (x) (not (pred x))) lst))

(define (foldl f acc lst)
  (if (null? lst) acc (foldl f (f (car lst) acc) (cdr lst))))

(define (foldr f acc lst)
  (foldl f acc (reverse lst)))

(define (reduce f init lst) (foldl f init lst))

(define (max x . rest) (foldl (lambda (y z) (if (> y z) y z)) x rest))
(define (min x . rest) (foldl (lambda (y z) (if (< y z) y z)) x rest))

(define (sum lst) (foldl + 0 lst))
(define (add1 n) (+ n 1))
(define (sub1 n) (- n 1))

(define (find pred lst)
  (if (null? lst) #f (if (pred (car lst)) (car lst) (find pred (cdr lst)))))

(define (any? pred lst)
  (if (null? lst) #f (if (pred (car lst)) #t (any? pred (cdr lst)))))

(define (every? pred lst)
  (if (null? lst) #t (if (pred (car lst)) (every? pred (cdr lst)) #f)))

(define (assoc key alist)
  (if (null? alist)
      #f
      (if (equal? key (car (car alist))) (car alist) (assoc key (cdr alist)))))

(define (tusk-list-index pred lst i)
  (if (null? lst) #f (if (pred (car lst)) i (tusk-list-index pred (cdr lst) (+ i 1)))))
(define (list-index pred lst) (tusk-list-index pred lst 0))

(define (tusk-list-take lst n acc)
  (if (if (= n 0) #t (null? lst))
      (reverse acc)
      (tusk-list-take (cdr lst) (- n 1) (cons (car lst) acc))))
(define (list-take lst n) (tusk-list-take lst n '()))

(define (list-drop lst n) (if (if (= n 0) #t (null? lst)) lst (list-drop (cdr lst) (- n 1))))

(define (iota n) (range 0 n))

(define (flatten lst)
  (if (null? lst)
      '()
      (if (list? (car lst))
          (append (flatten (car lst)) (flatten (cdr lst)))
          (cons (car lst) (flatten (cdr lst))))))

(define (vector->list v) (tusk-vector->list v))

;; Stable merge sort: (sort lst less?). Written with plain `if` and
;; top-level helpers: every worker is a fork of an engine that compiled this
;; once per host process, and internal defines and `cond` cost the most to
;; compile.
(define (tusk-sort-merge a b less? acc)
  (if (null? a)
      (append (reverse acc) b)
      (if (null? b)
          (append (reverse acc) a)
          (if (less? (car b) (car a))
              (tusk-sort-merge a (cdr b) less? (cons (car b) acc))
              (tusk-sort-merge (cdr a) b less? (cons (car a) acc))))))

(define (tusk-sort-split lst a b)
  (if (null? lst) (cons a b) (tusk-sort-split (cdr lst) b (cons (car lst) a))))

(define (sort lst less?)
  (if (if (null? lst) #t (null? (cdr lst)))
      lst
      ((lambda (halves)
         (tusk-sort-merge (sort (reverse (car halves)) less?)
                          (sort (reverse (cdr halves)) less?)
                          less?
                          '()))
       (tusk-sort-split lst '() '()))))

;; ---------------------------------------------------------------- hashes and envelopes

;; (hash-ref h k), or with a default: (hash-ref h k #f), or a thunk called
;; on a miss, (hash-ref h k (lambda () 0)) (Racket's failure result).
;; (hash-ref* h "a" "b") follows keys, #f as soon as one is missing, is
;; native (dialect.rs), as is the key rule both keep (`issue_type` finds
;; `issueType`, `issues` a view's `items`).
(define (tusk-hash-ref-or h k d extra)
  (if (null? extra)
      ((lambda (found) (if (null? found) (if (procedure? d) (d) d) (car found)))
       (tusk-hash-find h k))
      (tusk-hash-ref h k d (car extra))))
(define (hash-ref h k . default)
  (if (null? default) (tusk-hash-ref h k) (tusk-hash-ref-or h k (car default) (cdr default))))

(define (accepted? envelope) (equal? (tusk-hash-ref envelope "resultClass") "accepted"))
(define (rejected? envelope) (not (accepted? envelope)))
(define (result-class envelope) (tusk-hash-ref envelope "resultClass"))
(define (failure-classes envelope) (tusk-hash-ref envelope "failureClasses"))
(define (payload envelope) (tusk-hash-ref envelope "payload"))

;; ---------------------------------------------------------------- names from other Schemes
;; Racket's, R7RS's and SRFI-1's names for what this dialect does
;; (src/sandbox/dialect.rs: the natives, and the names left unbound with
;; what to write instead).

(define empty '())
(define (hash-set h k v) (hash-insert h k v))
(define (hash-has-key? h k) (hash-contains? h k))
(define (hash-count h) (hash-length h))
(define (hash-update h k f . default)
  (hash-insert h k (f (if (null? default) (tusk-hash-ref h k) (hash-ref h k (car default))))))
(define (hash-map h f) (map (lambda (kv) (f (car kv) (cdr kv))) (hash->list h)))
(define (hash-for-each h f) (for-each (lambda (kv) (f (car kv) (cdr kv))) (hash->list h)))
(define (string-trim s) (trim s))
(define (take lst n) (list-take lst n))
(define (drop lst n) (list-drop lst n))
(define (append-map f lst) (apply append (map f lst)))
(define (filter-map f lst) (filter (lambda (x) x) (map f lst)))
(define (memf pred lst) (if (null? lst) #f (if (pred (car lst)) lst (memf pred (cdr lst)))))
(define (findf pred lst) (find pred lst))
(define (count pred lst) (length (filter pred lst)))
(define (andmap pred lst) (every? pred lst))
(define (ormap pred lst) (any? pred lst))
(define (index-of lst v) (list-index (lambda (x) (equal? x v)) lst))
(define (build-list n f) (map f (range 0 n)))
(define (tusk-dedup lst seen acc)
  (if (null? lst)
      (reverse acc)
      (if (hashset-contains? seen (car lst))
          (tusk-dedup (cdr lst) seen acc)
          (tusk-dedup (cdr lst) (hashset-insert seen (car lst)) (cons (car lst) acc)))))
(define (remove-duplicates lst) (tusk-dedup lst (hashset) '()))
(define (tusk-arg-best f lst better?)
  (foldl (lambda (x best) (if (better? (f x) (f best)) x best)) (car lst) (cdr lst)))
(define (argmin f lst) (tusk-arg-best f lst <))
(define (argmax f lst) (tusk-arg-best f lst >))
(define (in-list lst) lst)
(define (in-range . args) (apply range args))
(define (in-vector v) (vector->list v))
(define (in-hash-keys h) (hash-keys h))
(define (in-hash-values h) (hash-values h))

;; What the `for` forms walk: a list, a vector, a string (its characters),
;; a count n (0 to n-1), or a hash (its key . value pairs).
(define (tusk-seq s)
  (if (list? s)
      s
      (if (vector? s)
          (vector->list s)
          (if (string? s)
              (string->list s)
              (if (integer? s)
                  (range 0 s)
                  (if (hash? s)
                      (hash->list s)
                      (error "a for clause walks a list, vector, string, count or hash, not" s)))))))
(define (tusk-keep-map keep? f lst) (map f (filter keep? lst)))
(define (tusk-fold2 f acc xs ys)
  (if (if (null? xs) #t (null? ys)) acc (tusk-fold2 f (f acc (car xs) (car ys)) (cdr xs) (cdr ys))))

;; Racket's for loops over one clause, or two walked side by side; a
;; single clause may carry #:when.
(define-syntax for/list
  (syntax-rules ()
    [(_ ([x s] #:when c) body ...) (tusk-keep-map (lambda (x) c) (lambda (x) body ...) (tusk-seq s))]
    [(_ ([x s]) body ...) (map (lambda (x) body ...) (tusk-seq s))]
    [(_ ([x s] [y t]) body ...) (map (lambda (x y) body ...) (tusk-seq s) (tusk-seq t))]))

(define-syntax for
  (syntax-rules ()
    [(_ ([x s] #:when c) body ...) (for-each (lambda (x) (if c (begin body ...) (void))) (tusk-seq s))]
    [(_ ([x s]) body ...) (for-each (lambda (x) body ...) (tusk-seq s))]
    [(_ ([x s] [y t]) body ...) (for-each (lambda (x y) body ...) (tusk-seq s) (tusk-seq t))]))

(define-syntax for/fold
  (syntax-rules ()
    [(_ ([acc init]) ([x s] #:when c) body ...)
     (foldl (lambda (x acc) (if c (begin body ...) acc)) init (tusk-seq s))]
    [(_ ([acc init]) ([x s]) body ...) (foldl (lambda (x acc) body ...) init (tusk-seq s))]
    [(_ ([acc init]) ([x s] [y t]) body ...)
     (tusk-fold2 (lambda (acc x y) body ...) init (tusk-seq s) (tusk-seq t))]))

(define-syntax for*/list
  (syntax-rules ()
    [(_ ([x s] [y t]) body ...) (append-map (lambda (x) (map (lambda (y) body ...) (tusk-seq t))) (tusk-seq s))]
    [(_ ([x s]) body ...) (for/list ([x s]) body ...)]))

(define-syntax for/sum
  (syntax-rules ()
    [(_ clauses body ...) (foldl + 0 (for/list clauses body ...))]))

(define-syntax for/and
  (syntax-rules ()
    [(_ clauses body ...) (every? (lambda (v) v) (for/list clauses body ...))]))

(define-syntax for/or
  (syntax-rules ()
    [(_ clauses body ...) (any? (lambda (v) v) (for/list clauses body ...))]))
