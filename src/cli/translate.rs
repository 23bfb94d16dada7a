//! `tgsi translate`: a shader (TGSI text or tokens, SM4/SM5 assembly, DXBC)
//! to a SPIR-V module, binary or assembly ([`tgsi::translate`]); `--layout`
//! prints the module's resource interface.

use super::input::{display_name, read_bytes, write_bytes};
use anyhow::{Result, anyhow, bail};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tgsi::translate::{
    Options, disassemble, layout, push_constants, specialization_constants, to_spirv,
};

/// `--to` values.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Output {
    /// The SPIR-V binary (little-endian words)
    Spirv,
    /// SPIR-V assembly text
    SpirvAsm,
}

#[derive(clap::Args)]
pub struct TranslateArgs {
    /// TGSI text or tokens, SM4/SM5 assembly or a DXBC blob
    pub file: PathBuf,
    /// What to write
    #[arg(long, value_enum, default_value = "spirv")]
    pub to: Output,
    /// Output file (`-` writes standard output; the default for assembly)
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// A DXBC blob with several programs (a library, an effect): the
    /// program to translate, counted from 0
    #[arg(long, value_name = "N")]
    pub entry: Option<usize>,
    /// Print the resource interface (descriptor set and binding of every
    /// register file the shader uses) instead of translating
    #[arg(long)]
    pub layout: bool,
}

/// The shader to translate and whether it follows Direct3D's rules, with
/// the Direct3D slot of each TGSI resource (for `--layout`).
struct Input {
    shader: tgsi::Shader,
    d3d: Option<Vec<tgsi::d3d::lower::Binding>>,
    /// A Direct3D hull shader's tessellator settings.
    tessellator: Option<tgsi::tess::Settings>,
    /// Per TGSI instruction, the line it comes from (when the input is
    /// text, or binary listed by `tgsi dis`), for errors.
    lines: Vec<Option<u32>>,
}

fn load(path: &Path, entry: Option<usize>) -> Result<Option<Input>> {
    let bytes = read_bytes(path)?;
    let name = display_name(path);
    if tgsi::sniff::kind_of(&bytes) == Some(tgsi::sniff::Kind::Dxbc) {
        // translated only once valid: the errors `check` gives
        if !super::d3dverbs::check(&bytes, &name) {
            return Ok(None);
        }
        let programs =
            tgsi::d3d::lower::container_programs(&bytes).map_err(|e| anyhow!("{name}: {e}"))?;
        let k = match (entry, programs.len()) {
            (Some(k), n) if k < n => k,
            (Some(k), n) => bail!("{name}: --entry {k}: the blob holds {n} program(s)"),
            (None, 1) => 0,
            (None, 0) => bail!("{name}: the container holds no shader program"),
            (None, n) => bail!(
                "{name}: the blob holds {n} programs: pick one with --entry N (0 to {})",
                n - 1
            ),
        };
        let p = &programs[k];
        let program = tgsi::d3d::decode_program(&p.payload)
            .map_err(|e| anyhow!("{name}: {}", e.shifted(p.offset)))?;
        let lowered = tgsi::d3d::lower::lower(&program, &p.signatures).map_err(|e| {
            let map = tgsi::d3d::source_map::SourceMap::from_payload(&p.payload, p.offset);
            let place = e
                .instruction
                .and_then(|i| super::d3dverbs::binary_place(&map, i))
                .unwrap_or_else(|| format!("program {k} (byte offset {})", p.offset));
            anyhow!("{name}: {place}: the program cannot be lowered to TGSI: {e}")
        })?;
        let tessellator = lowered.tessellator.as_ref().and_then(|t| t.settings().ok());
        return Ok(Some(Input {
            shader: lowered.shader,
            d3d: Some(lowered.bindings),
            tessellator,
            lines: Vec::new(),
        }));
    }
    match tgsi::debug::Source::from_bytes(&name, &bytes) {
        Ok(s) => Ok(Some(Input {
            lines: (0..s.shader().instructions().count())
                .map(|pc| s.line_of(pc))
                .collect(),
            shader: s.shader().clone(),
            d3d: s.d3d().map(|d| d.lowered.bindings.clone()),
            tessellator: s
                .d3d()
                .and_then(|d| d.lowered.tessellator.as_ref())
                .and_then(|t| t.settings().ok()),
        })),
        Err(e) => {
            // rendered diagnostics carry their own `error:`; a plain
            // message (undecodable tokens) gets it here
            if !e.starts_with("error") {
                eprint!("error: ");
            }
            eprint!("{e}");
            if !e.ends_with('\n') {
                eprintln!();
            }
            Ok(None)
        }
    }
}

pub fn translate(args: &TranslateArgs) -> Result<ExitCode> {
    let name = display_name(&args.file);
    let Some(input) = load(&args.file, args.entry)? else {
        return Ok(ExitCode::from(1));
    };
    if args.layout {
        for b in layout(&input.shader) {
            let slot = input.d3d.as_ref().and_then(|bs| {
                bs.iter()
                    .find(|d| d.file == b.file && d.index == b.index)
                    .map(|d| format!("  (Direct3D {:?})", d.slot))
            });
            println!(
                "set {} binding {}: {}[{}], {}{}",
                b.set,
                b.binding,
                b.file,
                b.index,
                b.kind,
                slot.unwrap_or_default()
            );
        }
        for (id, what) in specialization_constants(&input.shader) {
            println!("specialization constant {id}: {what}");
        }
        for (bytes, what) in push_constants(&input.shader) {
            println!(
                "push constants, bytes {}..{}: {what}",
                bytes.start, bytes.end
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    let options = Options {
        direct3d: input.d3d.is_some(),
        tessellator: input.tessellator,
        ..Options::default()
    };
    let words = to_spirv(&input.shader, &options).map_err(|e| {
        match e
            .instruction
            .and_then(|i| input.lines.get(i).copied().flatten())
        {
            Some(line) => anyhow!("{name}:{line}: {e}"),
            None => anyhow!("{name}: {e}"),
        }
    })?;
    match args.to {
        Output::Spirv => {
            let out = args.output.as_deref().ok_or_else(|| {
                anyhow!("--to spirv writes a binary: give -o FILE (or -o - for standard output)")
            })?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            write_bytes(out, &bytes)?;
        }
        Output::SpirvAsm => {
            let text = disassemble(&words).map_err(|e| anyhow!("{name}: {e}"))?;
            write_bytes(
                args.output.as_deref().unwrap_or(Path::new("-")),
                text.as_bytes(),
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
