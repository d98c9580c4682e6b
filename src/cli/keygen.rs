//! `tusk keygen FILE`: a new ed25519 key pair for signing effect-log footers
//! (`--sign-key FILE`) and checking them (`tusk replay --trust FILE.pub`).

use crate::cli::{CliClass, CliError, Exit};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct KeygenArgs {
    /// Where the secret key goes (mode 0600); the public key goes to FILE.pub.
    /// Neither may exist already.
    #[arg(value_name = "FILE")]
    pub out: PathBuf,
    /// Print a JSON object (paths and key id) instead of a line.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &KeygenArgs) -> Result<Exit, CliError> {
    match crate::chain::generate(&args.out) {
        Ok((public, key_id)) => {
            let text = if args.json {
                format!(
                    "{}\n",
                    serde_json::json!({
                        "kind": "tusk.keygen.v0",
                        "secretKey": args.out.display().to_string(),
                        "publicKey": public.display().to_string(),
                        "keyId": key_id,
                    })
                )
            } else {
                format!(
                    "key {key_id}: secret {} · public {}\n",
                    args.out.display(),
                    public.display()
                )
            };
            super::write_stdout(text.as_bytes())?;
            Ok(Exit::Accepted)
        }
        Err(e) => {
            let class = CliClass::KeygenWriteFailed.as_str();
            let error = CliError::unusable("tusk keygen", &e).with_class(class);
            Err(if args.json {
                error.with_json_first(serde_json::json!({
                    "result": "rejected",
                    "class": class,
                    "failureClasses": [class],
                    "message": e.to_string(),
                }))
            } else {
                error
            })
        }
    }
}
