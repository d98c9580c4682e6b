(require "provide-macro.scm")
