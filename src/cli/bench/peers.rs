//! Where `tgsi bench --peer` finds Mesa's peer programs.

use anyhow::{Result, bail};
use std::path::PathBuf;

/// Where the peer programs are: `$TGSI_PEER_DIR`, else `peers/build/` of
/// the repository the command was built from.
pub fn peer_dir() -> PathBuf {
    std::env::var_os("TGSI_PEER_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("peers/build"))
}

/// The peer program `name`, or an error saying how to build it.
pub fn peer_program(name: &str, script: &str) -> Result<PathBuf> {
    let exe = peer_dir().join(name);
    if exe.exists() {
        Ok(exe)
    } else {
        bail!(
            "{} not found: build it with `{}/{script}` (or set TGSI_PEER_DIR to where it is; peers/README.md)",
            exe.display(),
            env!("CARGO_MANIFEST_DIR")
        )
    }
}
