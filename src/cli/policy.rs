//! `tusk policy digest`: the digest a request must carry as `policyDigest`.

use super::{CliError, Exit};
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum PolicyCommand {
    /// Print the active mutation policy's digest (`pol1_…`).
    Digest(DigestArgs),
}

#[derive(Args, Debug)]
pub struct DigestArgs {
    /// Policy file (default .premath/mutation_policy.json; built-in default when absent).
    #[arg(long)]
    pub policy: Option<PathBuf>,
    /// Print `{digest, source, policy}` as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(cmd: PolicyCommand) -> Result<Exit, CliError> {
    match cmd {
        PolicyCommand::Digest(args) => {
            let path = args
                .policy
                .unwrap_or_else(|| PathBuf::from(".premath/mutation_policy.json"));
            match crate::runtime::load_policy(&path) {
                Ok(policy) => {
                    if args.json {
                        let source = policy.source.as_ref().map(|p| p.display().to_string());
                        let out = serde_json::json!({"digest": policy.digest, "source": source, "policy": policy.document});
                        println!("{}", crate::canonical::to_pretty_sorted(&out));
                    } else {
                        println!("{}", policy.digest);
                    }
                    Ok(Exit::Accepted)
                }
                Err(e) => Err(CliError::unusable("tusk policy", e)),
            }
        }
    }
}
