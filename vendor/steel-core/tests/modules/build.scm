(require "website.scm")
