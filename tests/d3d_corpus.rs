//! The Direct3D conformance test over the whole fxc corpus
//! (`tests/fixtures/d3d`): every non-effect blob disassembles to exactly the
//! listing fxc printed beside it, with this crate's own printers for every
//! part (header, level-9 sections, program, footer).
//!
//! Two facts are not in the blobs and come from the listing: fxc 9.29's
//! command line under the banner, and, for the three `/Zi` debug listings,
//! the `#line` lines and `// r0.x <- name` comments fxc takes from the debug
//! chunk (those listings are compared without them, instruction lines
//! exactly). One run reports every failing file with its first difference.

use tgsi::d3d::listing::{ListingOptions, is_effect};

mod common;

/// fxc 9.29's command line (`//   fxc ...` under the banner), if printed.
fn command_line(listing: &str) -> Option<String> {
    listing
        .lines()
        .take(8)
        .find_map(|l| l.strip_prefix("//   fxc "))
        .map(|rest| format!("fxc {}", rest.trim_end()))
}

/// Whether a listing carries `/Zi` debug annotations.
fn is_debug_listing(listing: &str) -> bool {
    listing.lines().any(|l| l.starts_with("#line "))
}

/// A `/Zi` listing without what comes from the debug chunk: `#line` lines,
/// blank lines, the `// Initial variable locations:` comment block inside the
/// program, and trailing `// ...` comments after instructions.
fn without_debug_annotations(text: &str) -> String {
    let mut out = String::new();
    let mut in_program = false;
    for line in text.lines() {
        if line.starts_with("#line ") || line.trim().is_empty() {
            continue;
        }
        if line.starts_with("// Approximately ") {
            in_program = false;
        } else if !line.starts_with("//") {
            in_program = true;
        } else if in_program {
            continue;
        }
        let kept = match line.find(" // ") {
            Some(at) if !line.starts_with("//") => line[..at].trim_end(),
            _ => line,
        };
        out.push_str(kept);
        out.push('\n');
    }
    out
}

fn first_difference(got: &str, want: &str) -> String {
    let g: Vec<&str> = got.split('\n').collect();
    let w: Vec<&str> = want.split('\n').collect();
    for k in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(k), w.get(k));
        if a != b {
            return format!(
                "line {}:\n      fxc: {:?}\n      got: {:?}",
                k + 1,
                b.copied().unwrap_or("<end>"),
                a.copied().unwrap_or("<end>")
            );
        }
    }
    "identical lines, different bytes (line endings?)".to_string()
}

#[test]
fn every_blob_disassembles_to_its_fxc_listing() {
    let root = common::corpus_root();
    let blobs = common::corpus_files(common::BLOBS);
    let mut failures = Vec::new();
    let (mut compared, mut exact, mut debug) = (0, 0, 0);
    for path in &blobs {
        let rel = common::relative(path);
        let Ok(want) = std::fs::read_to_string(path.with_extension("asm")) else {
            continue;
        };
        let bytes = std::fs::read(path).unwrap();
        if is_effect(&bytes) {
            continue;
        }
        compared += 1;
        let options = ListingOptions {
            command_line: command_line(&want),
        };
        let got = match tgsi::d3d::disassemble_with(&bytes, &options) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{rel}: does not disassemble: {e}"));
                continue;
            }
        };
        if is_debug_listing(&want) {
            debug += 1;
            let (g, w) = (
                without_debug_annotations(&got),
                without_debug_annotations(&want),
            );
            if g != w {
                failures.push(format!(
                    "{rel} (debug listing): {}",
                    first_difference(&g, &w)
                ));
            }
        } else if got == want {
            exact += 1;
        } else {
            failures.push(format!("{rel}: {}", first_difference(&got, &want)));
        }
    }
    assert!(
        compared >= 200,
        "only {compared} listings found under {}",
        root.display()
    );
    assert!(
        failures.is_empty(),
        "{} of {compared} listings differ ({exact} identical, {debug} debug listings):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
