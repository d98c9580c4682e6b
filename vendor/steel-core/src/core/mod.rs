pub mod instructions;
pub mod labels;
pub mod opcode;
pub(crate) mod utils;
