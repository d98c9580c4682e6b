//! `tusk policy digest`: the digest a request must carry as `policyDigest`.

use super::{CliError, Exit};
use clap::{Args, Subcommand};
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum PolicyCommand {
    /// Print the active mutation policy's digest (`pol1_…`).
    Digest(DigestArgs),
}

#[derive(Args, Debug)]
pub struct DigestArgs {
    /// Policy file (must exist; default .premath/mutation_policy.json, the built-in default when that is absent).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Print `{digest, source, policy}` as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: PolicyCommand) -> Result<Exit, CliError> {
    match cmd {
        PolicyCommand::Digest(args) => {
            let file = crate::host::PolicyFile::from_flag(
                args.policy.as_deref(),
                Path::new(".premath/mutation_policy.json"),
            );
            match crate::runtime::load_policy(&file) {
                Ok(policy) => {
                    if args.json {
                        let source = policy.source.as_ref().map(|p| p.display().to_string());
                        let out = serde_json::json!({"digest": policy.digest, "source": source, "policy": policy.document});
                        println!("{}", crate::canonical::to_pretty_sorted(&out));
                    } else {
                        println!("{}", policy.digest);
                        if policy.source.is_none() {
                            // stdout stays the digest alone (`$(tusk policy digest)`).
                            eprintln!(
                                "tusk policy: no policy file at {}: the built-in default is active \
                                 (every mutation allowed)",
                                file.path().display()
                            );
                        }
                    }
                    Ok(Exit::Accepted)
                }
                Err(e) => {
                    let error = CliError::unusable("tusk policy", &e).with_class(e.class());
                    Err(if args.json {
                        error.with_json(serde_json::json!({
                            "result": "rejected",
                            "class": e.class(),
                            "message": e.to_string(),
                        }))
                    } else {
                        error
                    })
                }
            }
        }
    }
}
