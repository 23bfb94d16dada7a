//! The level-9 programs of the Direct3D corpus (`Aon9`, `XNAP`, `XNAS`
//! chunks, top level or inside library `LIBF` containers): every listing
//! section prints byte for byte as fxc's listing beside the blob, sits where
//! `level9_sections` documents (two `//` lines before, the SM4 program line
//! right after), every payload encodes back to its bytes, and truncated or
//! bit-flipped payloads give errors, never panics.
//!
//! Each test checks every file, then lists all failures at once.

use std::collections::BTreeSet;
use std::path::PathBuf;
use tgsi::d3d::container::{Container, tags};
use tgsi::d3d::level9::{self, Level9ChunkKind};

mod common;

/// The lines a level-9 section can start with.
const SECTION_STARTS: [&str; 6] = [
    "// Constant buffer to DX9 shader constant mappings:",
    "// Sampler/Resource to DX9 shader sampler mappings:",
    "// Runtime generated constant mappings:",
    "// Level9 shader bytecode:",
    "// XNA Prepass shader bytecode:",
    "// XNA shader bytecode:",
];

/// Every container of a blob in listing order: the container itself, then
/// the containers of its library functions (`LIBF`), depth first. A blob
/// that is no container (a raw effect) has none.
fn containers(bytes: &[u8], out: &mut Vec<Container>) {
    let Ok(container) = Container::parse(bytes) else {
        return;
    };
    let nested: Vec<Vec<u8>> = container
        .chunks_with(tags::LIBF)
        .map(|chunk| chunk.data.clone())
        .collect();
    out.push(container);
    for payload in nested {
        containers(&payload, out);
    }
}

fn has_level9(container: &Container) -> bool {
    container
        .chunks
        .iter()
        .any(|chunk| Level9ChunkKind::from_fourcc(chunk.tag.0).is_some())
}

/// Every corpus blob with a level-9 chunk, with its containers.
fn level9_blobs() -> Vec<(PathBuf, Vec<Container>)> {
    let mut out = Vec::new();
    for path in common::corpus_files(common::BLOBS) {
        let bytes = std::fs::read(&path).unwrap();
        let mut all = Vec::new();
        containers(&bytes, &mut all);
        if all.iter().any(has_level9) {
            out.push((path, all));
        }
    }
    assert_eq!(out.len(), 21, "the corpus has 21 blobs with level-9 chunks");
    out
}

/// The level-9 blocks of a listing, in order: from a section start line to
/// the `// approximately` line not followed by `//`. Each block also reports
/// whether it sits where `level9_sections` says (two `//` lines before it,
/// a non-comment line after it).
fn listing_blocks(listing: &str) -> Vec<(String, bool)> {
    let lines: Vec<&str> = listing.split('\n').collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if !SECTION_STARTS.contains(&lines[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = None;
        for j in start..lines.len() {
            let next = lines.get(j + 1).copied().unwrap_or("");
            if lines[j].starts_with("// approximately ") && next != "//" {
                end = Some(j);
                break;
            }
        }
        let Some(end) = end else {
            blocks.push((lines[start..].join("\n"), false));
            break;
        };
        let placed = start >= 2
            && lines[start - 1] == "//"
            && lines[start - 2] == "//"
            && lines
                .get(end + 1)
                .is_some_and(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with(' '));
        let mut text = lines[start..=end].join("\n");
        text.push('\n');
        blocks.push((text, placed));
        i = end + 1;
    }
    blocks
}

fn first_difference(expected: &str, actual: &str) -> String {
    let expected_lines: Vec<&str> = expected.lines().collect();
    let actual_lines: Vec<&str> = actual.lines().collect();
    for index in 0..expected_lines.len().max(actual_lines.len()) {
        let e = expected_lines.get(index).copied();
        let a = actual_lines.get(index).copied();
        if e != a {
            return format!(
                "line {} of the section: fxc {:?}, ours {:?}",
                index + 1,
                e.unwrap_or("<end>"),
                a.unwrap_or("<end>")
            );
        }
    }
    "the same lines, different line ends".to_string()
}

#[test]
fn every_level9_section_prints_as_fxc_lists_it() {
    let blobs = level9_blobs();
    let mut failures = Vec::new();
    let mut identical = 0;
    for (path, all) in &blobs {
        let name = common::relative(path);
        let listing_path = path.with_extension("asm");
        let listing = match std::fs::read_to_string(&listing_path) {
            Ok(text) => text,
            Err(e) => {
                failures.push(format!("{name}: no listing ({e})"));
                continue;
            }
        };
        let expected = listing_blocks(&listing);
        let mut ours = Vec::new();
        let mut failed = false;
        for container in all {
            match level9::level9_sections(container) {
                Ok(Some(text)) => ours.push(text),
                Ok(None) => {}
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    failed = true;
                }
            }
        }
        if failed {
            continue;
        }
        if ours.len() != expected.len() {
            failures.push(format!(
                "{name}: {} level-9 blocks in the listing, {} containers with level-9 chunks",
                expected.len(),
                ours.len()
            ));
            continue;
        }
        let mut file_ok = true;
        for (index, ((expected, placed), actual)) in expected.iter().zip(&ours).enumerate() {
            if expected != actual {
                failures.push(format!(
                    "{name} block {}: {}",
                    index + 1,
                    first_difference(expected, actual)
                ));
                file_ok = false;
            } else if !placed {
                failures.push(format!(
                    "{name} block {}: not preceded by two `//` lines and followed by the SM4 program",
                    index + 1
                ));
                file_ok = false;
            }
        }
        if file_ok {
            identical += 1;
        }
    }
    eprintln!("{identical}/{} listings identical", blobs.len());
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The distinct level-9 payloads of the corpus.
fn distinct_payloads() -> Vec<(String, Vec<u8>)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (path, all) in level9_blobs() {
        for container in all {
            for chunk in container.chunks {
                if Level9ChunkKind::from_fourcc(chunk.tag.0).is_some()
                    && seen.insert(chunk.data.clone())
                {
                    let label = format!("{} {}", common::relative(&path), chunk.tag);
                    out.push((label, chunk.data));
                }
            }
        }
    }
    out
}

#[test]
fn every_level9_payload_encodes_back_to_its_bytes() {
    let payloads = distinct_payloads();
    let mut failures = Vec::new();
    for (label, payload) in &payloads {
        match level9::decode(payload) {
            Ok(shader) => {
                let bytes = level9::encode(&shader);
                if &bytes != payload {
                    let at = bytes
                        .iter()
                        .zip(payload)
                        .position(|(a, b)| a != b)
                        .unwrap_or(bytes.len().min(payload.len()));
                    failures.push(format!(
                        "{label}: first differing byte at {at} ({} bytes encoded, {} read)",
                        bytes.len(),
                        payload.len()
                    ));
                }
            }
            Err(e) => failures.push(format!("{label}: {e}")),
        }
    }
    eprintln!(
        "{}/{} distinct payloads round-trip",
        payloads.len() - failures.len(),
        payloads.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Decodes, and if that works, prints and checks that encoding is stable.
fn survive(payload: &[u8]) -> bool {
    match level9::decode(payload) {
        Ok(shader) => {
            let text = level9::section_text(Level9ChunkKind::Level9, &shader);
            assert!(text.ends_with('\n'));
            let again =
                level9::decode(&level9::encode(&shader)).expect("an encoded shader decodes");
            assert_eq!(again, shader, "decode(encode(x)) == x");
            true
        }
        Err(e) => {
            assert!(
                e.offset <= payload.len(),
                "error offset {} past the payload",
                e.offset
            );
            false
        }
    }
}

#[test]
fn truncated_and_bit_flipped_payloads_never_panic() {
    let mut decoded = 0usize;
    let mut rejected = 0usize;
    for (label, payload) in distinct_payloads() {
        for length in 0..payload.len() {
            assert!(
                !survive(&payload[..length]),
                "{label}: a payload cut to {length} bytes decodes"
            );
            rejected += 1;
        }
        let mut flipped = payload.clone();
        for bit in 0..payload.len() * 8 {
            flipped[bit / 8] ^= 1 << (bit % 8);
            if survive(&flipped) {
                decoded += 1;
            } else {
                rejected += 1;
            }
            flipped[bit / 8] ^= 1 << (bit % 8);
        }
    }
    eprintln!("{decoded} mutations decoded, {rejected} rejected");
    assert!(decoded > 0 && rejected > 0);
}
