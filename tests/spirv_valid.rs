//! Every shader of the TGSI corpus and every program of the fxc corpus
//! (lowered to TGSI) is either translated to a SPIR-V module that
//! `spirv-val --target-env vulkan1.2` accepts, or refused with an error
//! naming why; the counts of both are printed, by source. Where
//! `spirv-val` is missing (Debian's `spirv-tools`), the validation is
//! skipped, loudly.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use tgsi::translate::{Options, to_spirv};

/// `spirv-val`'s verdict on a module (named in its message), `None` when
/// the tool is missing.
fn validate(words: &[u32], name: &str) -> Option<Result<(), String>> {
    tgsi::translate::spirv_val(words).map(|r| r.map_err(|e| format!("{name}: {e}")))
}

/// What became of a corpus.
#[derive(Default)]
struct Tally {
    valid: usize,
    invalid: Vec<String>,
    /// Refusal reasons (the message without the instruction number), counted.
    refused: BTreeMap<String, usize>,
    unvalidated: usize,
}

impl Tally {
    /// Translates `shader` (with a Direct3D hull shader's `tessellator`
    /// settings, as `tgsi translate` does) and validates the module.
    fn add(
        &mut self,
        name: &str,
        shader: &tgsi::Shader,
        direct3d: bool,
        tessellator: Option<tgsi::tess::Settings>,
    ) {
        let options = Options {
            direct3d,
            tessellator,
            ..Options::default()
        };
        match to_spirv(shader, &options) {
            Ok(words) => match validate(&words, name) {
                Some(Ok(())) => self.valid += 1,
                Some(Err(e)) => self.invalid.push(e),
                None => self.unvalidated += 1,
            },
            Err(e) => *self.refused.entry(e.message).or_default() += 1,
        }
    }

    fn report(&self, what: &str) {
        let refused: usize = self.refused.values().sum();
        println!(
            "{what}: {} valid, {} invalid, {refused} refused{}",
            self.valid,
            self.invalid.len(),
            if self.unvalidated > 0 {
                format!(", {} translated but not validated", self.unvalidated)
            } else {
                String::new()
            }
        );
        for (why, n) in &self.refused {
            println!("  {n:4} × {why}");
        }
    }
}

fn spirv_val_present() -> bool {
    let found = std::process::Command::new("spirv-val")
        .arg("--version")
        .output()
        .is_ok();
    if !found {
        eprintln!(
            "\n*** SKIPPED: spirv-val is not installed (Debian: apt-get install spirv-tools); \
             modules are translated but NOT validated ***\n"
        );
    }
    found
}

#[test]
fn the_tgsi_corpus_translates_to_valid_modules_or_is_refused_by_name() {
    let present = spirv_val_present();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus");
    let mut tally = Tally::default();
    for folder in ["accepted", "mesa-generated"] {
        for f in common::files_under(&root.join(folder), &["tgsi"]) {
            let text = std::fs::read_to_string(&f).unwrap();
            let Ok((shader, _)) = tgsi::assemble(&text) else {
                continue;
            };
            tally.add(&f.display().to_string(), &shader, false, None);
        }
    }
    tally.report("TGSI corpus");
    assert!(tally.invalid.is_empty(), "{}", tally.invalid.join("\n"));
    if present {
        assert!(
            tally.valid >= 5,
            "only {} modules were translated",
            tally.valid
        );
    }
}

#[test]
fn the_fxc_corpus_translates_to_valid_modules_or_is_refused_by_name() {
    let present = spirv_val_present();
    let mut tally = Tally::default();
    for f in common::corpus_files(common::BLOBS) {
        let bytes = std::fs::read(&f).unwrap();
        let Ok(programs) = tgsi::d3d::lower::container_programs(&bytes) else {
            continue;
        };
        for (k, p) in programs.iter().enumerate() {
            let Ok(program) = tgsi::d3d::decode_program(&p.payload) else {
                continue;
            };
            let Ok(lowered) = tgsi::d3d::lower::lower(&program, &p.signatures) else {
                continue;
            };
            let name = format!("{} program {k}", common::relative(&f));
            let settings = lowered.tessellator.as_ref().and_then(|t| t.settings().ok());
            tally.add(&name, &lowered.shader, true, settings);
        }
    }
    tally.report("fxc corpus");
    assert!(tally.invalid.is_empty(), "{}", tally.invalid.join("\n"));
    if present {
        assert!(tally.valid >= 1, "no fxc program was translated");
    }
}
