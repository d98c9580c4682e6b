pub use steel_parser::tokens::{Token, TokenType};
