pub mod ast;
pub mod builder;
pub mod expand_visitor;
pub mod expander;
pub mod interner;
pub mod kernel;
pub mod lexer;
#[allow(clippy::module_inception)]
pub mod parser;
pub mod rename_idents;
pub mod replace_idents;
pub mod span;
pub mod span_visitor;
pub mod tokens;
pub mod tryfrom_visitor;
pub mod visitors;

mod macro_template;
#[cfg(test)]
mod prop;
