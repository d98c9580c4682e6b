//! Tamper evidence for the effect log (issue 21, item 5).
//!
//! Every row of a run names the row before it: `prevRowDigest` is the
//! digest of the previous row's line exactly as written (`sha256:` + hex of
//! its bytes, without the newline). The header, having no previous row,
//! chains from the run's `programDigest`. The footer carries the run's
//! `chainHead`: the digest of the footer itself serialized without
//! `chainHead` and `signature` (it names the last call row, so it covers the
//! whole run). A footer may carry an ed25519 `signature` over the chain head
//! ([`Signer`]); [`Trust`] checks it.
//!
//! What this proves: an edited, deleted, reordered or foreign row breaks a
//! link the reader reports as `log.chain`, naming the line. Without a
//! signature a writer with access to the log can recompute every digest of a
//! run; the signature is what makes a forged run detectable.

use crate::canonical::{hex, sha256_hex};
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// The footer member names the chain adds.
pub const PREV: &str = "prevRowDigest";
pub const HEAD: &str = "chainHead";
pub const SIGNATURE: &str = "signature";
/// The one signature algorithm.
pub const ALG: &str = "ed25519";

/// The digest of one written row: `sha256:` + hex of the line's bytes.
pub fn row_digest(line: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(line))
}

/// The chain head a footer carries: the digest of the footer serialized
/// without its `chainHead` and `signature` members.
pub fn footer_head(footer: &Value) -> String {
    let mut body = footer.clone();
    if let Some(map) = body.as_object_mut() {
        map.shift_remove(HEAD);
        map.shift_remove(SIGNATURE);
    }
    row_digest(&serde_json::to_vec(&body).expect("a JSON value serializes"))
}

/// A signing or trusted key that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("cannot read key file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("key file {path}: {reason}")]
    Malformed { path: PathBuf, reason: String },
    #[error("cannot write key file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The short id of a public key: the first 16 hex digits of its SHA-256.
pub fn key_id(key: &VerifyingKey) -> String {
    sha256_hex(key.as_bytes())[..16].to_string()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    if !text.len().is_multiple_of(2) || !text.is_ascii() {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// 32 bytes from a key file holding 64 hex digits (and an optional newline).
fn read_key_bytes(path: &Path) -> Result<[u8; 32], KeyError> {
    let text = crate::files::read_to_string(path, crate::files::CONFIG_MAX).map_err(|source| {
        KeyError::Read {
            path: path.to_path_buf(),
            source,
        }
    })?;
    unhex(&text)
        .and_then(|b| <[u8; 32]>::try_from(b).ok())
        .ok_or_else(|| KeyError::Malformed {
            path: path.to_path_buf(),
            reason: "expected 64 hexadecimal digits (an ed25519 key)".into(),
        })
}

/// Signs footers with one ed25519 key.
pub struct Signer {
    key: SigningKey,
    id: String,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the secret.
        f.debug_struct("Signer").field("keyId", &self.id).finish()
    }
}

impl Signer {
    /// The secret key written by [`generate`].
    pub fn load(path: &Path) -> Result<Self, KeyError> {
        let key = SigningKey::from_bytes(&read_key_bytes(path)?);
        let id = key_id(&key.verifying_key());
        Ok(Self { key, id })
    }

    pub fn key_id(&self) -> &str {
        &self.id
    }

    /// The footer's `signature` member over `head`.
    pub fn sign(&self, head: &str) -> Value {
        let signature = self.key.sign(head.as_bytes());
        json!({"alg": ALG, "keyId": self.id, "value": hex(&signature.to_bytes())})
    }
}

/// Writes a new key pair: `out` (the secret, mode 0600, never overwritten)
/// and `out.pub`. Returns the public key file and the key id.
pub fn generate(out: &Path) -> Result<(PathBuf, String), KeyError> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| KeyError::Write {
        path: out.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    let key = SigningKey::from_bytes(&seed);
    let public = out.with_file_name(format!(
        "{}.pub",
        out.file_name().unwrap_or_default().to_string_lossy()
    ));
    let write = |path: &Path, text: String, mode: u32| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(path)
            .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|_| f.sync_all()))
            .map_err(|source| KeyError::Write {
                path: path.to_path_buf(),
                source,
            })
    };
    if public.exists() {
        return Err(KeyError::Write {
            path: public,
            source: std::io::Error::from(std::io::ErrorKind::AlreadyExists),
        });
    }
    write(out, format!("{}\n", hex(&seed)), 0o600)?;
    write(
        &public,
        format!("{}\n", hex(key.verifying_key().as_bytes())),
        0o644,
    )?;
    Ok((public, key_id(&key.verifying_key())))
}

/// The public keys whose signatures a reader accepts.
#[derive(Debug, Default)]
pub struct Trust {
    keys: Vec<(String, VerifyingKey)>,
}

impl Trust {
    /// Public key files (as [`generate`] writes them).
    pub fn load(paths: &[PathBuf]) -> Result<Self, KeyError> {
        let mut keys = Vec::new();
        for path in paths {
            let key = VerifyingKey::from_bytes(&read_key_bytes(path)?).map_err(|e| {
                KeyError::Malformed {
                    path: path.clone(),
                    reason: format!("not an ed25519 public key: {e}"),
                }
            })?;
            keys.push((key_id(&key), key));
        }
        Ok(Self { keys })
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether `footer` carries a valid signature of a trusted key over its
    /// own chain head: the signing key's id, or why not.
    pub fn check(&self, footer: &Value) -> Result<String, String> {
        let Some(sig) = footer.get(SIGNATURE) else {
            return Err("no signature".into());
        };
        if sig.get("alg").and_then(Value::as_str) != Some(ALG) {
            return Err(format!("signature algorithm {}", sig["alg"]));
        }
        let id = sig.get("keyId").and_then(Value::as_str).unwrap_or_default();
        let Some((_, key)) = self.keys.iter().find(|(k, _)| k == id) else {
            return Err(format!("signed by key {id:?}, which is not trusted"));
        };
        let bytes = sig
            .get("value")
            .and_then(Value::as_str)
            .and_then(unhex)
            .and_then(|b| <[u8; 64]>::try_from(b).ok())
            .ok_or("a malformed signature value")?;
        let head = footer.get(HEAD).and_then(Value::as_str).unwrap_or_default();
        key.verify(head.as_bytes(), &Signature::from_bytes(&bytes))
            .map(|_| id.to_string())
            .map_err(|_| format!("the signature of key {id} does not match the chain head"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_with_its_key_only() {
        let dir = tempfile::tempdir().unwrap();
        let (public, id) = generate(&dir.path().join("k")).unwrap();
        let (other, _) = generate(&dir.path().join("o")).unwrap();
        let signer = Signer::load(&dir.path().join("k")).unwrap();
        assert_eq!(signer.key_id(), id);
        let mut footer = json!({"kind": "x", "runId": "r"});
        let head = footer_head(&footer);
        footer[HEAD] = json!(head);
        footer[SIGNATURE] = signer.sign(&head);
        assert_eq!(footer_head(&footer), head);
        assert_eq!(Trust::load(&[public]).unwrap().check(&footer), Ok(id));
        assert!(Trust::load(&[other]).unwrap().check(&footer).is_err());
        // Another head under the same signature fails.
        footer[HEAD] = json!("sha256:00");
        let trust = Trust::load(&[dir.path().join("k.pub")]).unwrap();
        assert!(trust.check(&footer).unwrap_err().contains("does not match"));
        // Keys are never overwritten.
        assert!(generate(&dir.path().join("k")).is_err());
    }
}
