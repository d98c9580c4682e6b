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

(define-syntax when
  (syntax-rules ()
    [(when a b ...) (if a (begin b ...) (void))]))

(define-syntax unless
  (syntax-rules ()
    [(unless a b ...) (if a (void) (begin b ...))]))

(define-syntax cond
  (syntax-rules (else =>)
    [(cond [else e1 ...]) (begin e1 ...)]
    [(cond [e1 => f]) (let ([res e1]) (if res (f res) (void)))]
    [(cond [e1 => f] c1 ...) (let ([res e1]) (if res (f res) (cond c1 ...)))]
    [(cond [e1]) e1]
    [(cond [e1] c1 ...) (or e1 (cond c1 ...))]
    [(cond [e1 e2 ...]) (if e1 (begin e2 ...) (void))]
    [(cond [e1 e2 ...] c1 ...) (if e1 (begin e2 ...) (cond c1 ...))]))

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

(define (string-append . parts)
  (tusk-reserve! (tusk-total-length parts))
  (apply tusk-raw-string-append parts))

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

(define (for-each f lst)
  (if (null? lst) (void) (begin (f (car lst)) (for-each f (cdr lst)))))

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

;; (hash-ref* h "a" "b") follows keys; #f as soon as one is missing.
(define (tusk-hash-walk h keys)
  (if (null? keys)
      h
      (if (if (hash? h) (hash-contains? h (car keys)) #f)
          (tusk-hash-walk (hash-ref h (car keys)) (cdr keys))
          #f)))
(define (hash-ref* h . keys) (tusk-hash-walk h keys))

(define (accepted? envelope) (equal? (hash-ref envelope "resultClass") "accepted"))
(define (rejected? envelope) (not (accepted? envelope)))
(define (result-class envelope) (hash-ref envelope "resultClass"))
(define (failure-classes envelope) (hash-ref envelope "failureClasses"))
(define (payload envelope) (hash-ref envelope "payload"))
