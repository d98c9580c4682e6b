//! `tusk keygen FILE`: a new ed25519 key pair for signing effect-log footers
//! (`--sign-key FILE`) and checking them (`tusk replay --trust FILE.pub`).

use crate::cli::CliClass;
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

pub fn run(args: &KeygenArgs) -> i32 {
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
            super::write_stdout(text.as_bytes())
        }
        Err(e) => {
            if args.json {
                let class = CliClass::KeygenWriteFailed.as_str();
                let error = serde_json::json!({
                    "result": "rejected",
                    "class": class,
                    "failureClasses": [class],
                    "message": e.to_string(),
                });
                let text = format!("{}\n", crate::canonical::to_pretty_sorted(&error));
                let _ = super::write_stdout(text.as_bytes());
            }
            eprintln!("tusk keygen: {e}");
            2
        }
    }
}
