//! `tgsi run` and `tgsi test`: executing shaders.
//!
//! `run` takes its data from the command line (`--const`, `--buffer`,
//! `--input`) and/or from a data file in the `.shader_test` section syntax
//! (`[constant N]`, `[buffer N]`, `[vertex data]`), runs a compute or vertex
//! shader and prints every output and buffer word exactly: hex, and its
//! float and integer readings (`--json` for scripts). The shader may be TGSI
//! text, SM4/SM5 assembly or a DXBC blob; a Direct3D shader is lowered to
//! TGSI and fed by register numbers (`--const N` is cbN, `--buffer N` uN,
//! `--input I` vI; [vertex data] may name input-signature elements), and its
//! outputs print as `o#` registers.

use super::input::{load_runnable, read_data_file};
use anyhow::{Result, anyhow, bail};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use tgsi::enums::Processor;
use tgsi::exec::{Limits, Resources};
use tgsi::shader_test::{self, Attribute, RunConfig, Section, ValueType, values};

#[derive(clap::Args)]
pub struct RunArgs {
    /// Shader to run (TGSI text, SM4/SM5 assembly or a DXBC blob; `-` for
    /// standard input): a compute or vertex shader
    pub shader: PathBuf,
    #[command(flatten)]
    pub io: RunInputs,
    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,
    /// Worker threads for a compute dispatch
    #[arg(long, default_value_t = 1, value_parser = super::thread_count)]
    pub threads: usize,
    /// Instruction budget per 16-lane batch
    #[arg(long, default_value_t = Limits::default().max_instructions)]
    pub budget: u64,
    /// Instruction budget of a whole compute dispatch: the instructions of
    /// all its 16-lane batches summed
    #[arg(long, default_value_t = Limits::default().max_dispatch_instructions)]
    pub dispatch_budget: u64,
}

/// What a run is fed: work groups or vertices, constants, buffers, vertex
/// inputs, system values and a data file (`tgsi run` and `tgsi debug`).
#[derive(clap::Args, Clone)]
pub struct RunInputs {
    /// Compute: number of work groups X,Y,Z (block size from CS_FIXED_BLOCK_*)
    #[arg(long, default_value = "1,1,1", value_name = "X,Y,Z")]
    pub groups: String,
    /// Vertex: number of vertices to run (default: rows of [vertex data], else 1)
    #[arg(long)]
    pub vertices: Option<usize>,
    /// Constant buffer contents: `N=TYPE:v,v,...` (TYPE float, uint, int, double,
    /// uint64, int64, hex); CONST[i] is buffer 0; for Direct3D shaders N is cbN.
    /// Repeatable.
    #[arg(long = "const", value_name = "N=TYPE:VALUES")]
    pub constants: Vec<String>,
    /// Storage buffer contents: `N=TYPE:v,v,...` (BUFFER[N]; for Direct3D
    /// shaders the raw or structured UAV uN). Repeatable.
    #[arg(long = "buffer", value_name = "N=TYPE:VALUES")]
    pub buffers: Vec<String>,
    /// Storage buffer size in bytes: `N=BYTES` (zero-filled beyond the contents)
    #[arg(long = "buffer-size", value_name = "N=BYTES")]
    pub buffer_sizes: Vec<String>,
    /// Vertex input for every vertex: `I=TYPE:x,y,z,w` (IN[I]; Direct3D: vI). Repeatable.
    #[arg(long = "input", value_name = "I=TYPE:X,Y,Z,W")]
    pub inputs: Vec<String>,
    /// A system value for every invocation: `NAME=TYPE:x[,y,z,w]` (e.g.
    /// `INSTANCEID=uint:3`, `BLOCK_ID=uint:2,0,0`); it replaces what the run would
    /// compute for SV registers of that semantic. Missing components are 0. Repeatable.
    #[arg(long = "sv", value_name = "NAME=TYPE:VALUES")]
    pub system_values: Vec<String>,
    /// Data file with `[constant N]`, `[buffer N]` and `[vertex data]` sections
    #[arg(long)]
    pub data: Option<PathBuf>,
}

/// `N=TYPE:v,v,...` → (N, words).
pub(super) fn parse_typed(spec: &str, what: &str) -> Result<(usize, Vec<u32>)> {
    let (index, rest) = spec
        .split_once('=')
        .ok_or_else(|| anyhow!("{what} `{spec}`: expected N=TYPE:VALUES"))?;
    let index: usize = index
        .trim()
        .parse()
        .map_err(|_| anyhow!("{what} `{spec}`: `{index}` is not an index"))?;
    Ok((index, parse_type_values(rest, spec, what)?))
}

/// The `TYPE:v,v,...` part of an option `spec` → words.
fn parse_type_values(rest: &str, spec: &str, what: &str) -> Result<Vec<u32>> {
    let (ty, vals) = rest
        .split_once(':')
        .ok_or_else(|| anyhow!("{what} `{spec}`: expected TYPE:VALUES after `=`"))?;
    let (ty, _) = ValueType::from_word(ty.trim())
        .ok_or_else(|| anyhow!("{what} `{spec}`: unknown type `{ty}`"))?;
    // a value left out between commas would move the later ones
    if vals.split(',').any(|v| v.trim().is_empty()) {
        bail!("{what} `{spec}`: expected values separated by single commas (one is empty)");
    }
    values::parse_words(ty, &vals.replace(',', " ")).map_err(|e| anyhow!("{what} `{spec}`: {e}"))
}

/// `NAME=TYPE:x[,y,z,w]` → (semantic, four words).
fn parse_system_value(spec: &str) -> Result<(tgsi::enums::SemanticName, [u32; 4])> {
    let (name, rest) = spec
        .split_once('=')
        .ok_or_else(|| anyhow!("--sv `{spec}`: expected NAME=TYPE:VALUES"))?;
    let semantic = tgsi::enums::SemanticName::from_name(name.trim())
        .ok_or_else(|| anyhow!("--sv `{spec}`: `{name}` is not a TGSI semantic name"))?;
    let words = parse_type_values(rest, spec, "--sv")?;
    if words.len() > 4 {
        bail!(
            "--sv `{spec}`: {} words given, a system value has at most 4",
            words.len()
        );
    }
    let mut four = [0u32; 4];
    four[..words.len()].copy_from_slice(&words);
    Ok((semantic, four))
}

fn slot<T: Default + Clone>(v: &mut Vec<T>, index: usize) -> Result<&mut T> {
    if index > 4096 {
        bail!("resource index {index} is out of range (at most 4096)");
    }
    if v.len() <= index {
        v.resize(index + 1, T::default());
    }
    Ok(&mut v[index])
}

fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// One word as hex, float and integer readings.
fn describe(word: u32) -> String {
    format!(
        "0x{word:08x}  {:>14}  {:>11}  {:>11}u",
        format_float(f32::from_bits(word)),
        word as i32,
        word
    )
}

fn format_float(f: f32) -> String {
    if f.is_finite() && f != 0.0 && (f.abs() >= 1e7 || f.abs() < 1e-4) {
        format!("{f:e}")
    } else {
        format!("{f:?}")
    }
}

pub fn run(args: &RunArgs) -> Result<ExitCode> {
    let Some(loaded) = load_runnable(&args.shader)? else {
        return Ok(ExitCode::from(1));
    };
    if super::vulkan_engine() {
        return run_on_vulkan(args, &loaded);
    }
    let name = &loaded.name;
    let numerics = if loaded.d3d.is_some() {
        tgsi::exec::Numerics::Direct3D
    } else {
        tgsi::exec::Numerics::Ieee
    };
    let program = tgsi::jit::compile(&loaded.shader, numerics).map_err(|e| loaded.run_error(&e))?;
    super::engine_note(name, &program);
    let (res, outputs) = execute(args, &loaded, &program)?;
    let d3d = loaded.d3d.as_ref();
    let mut report = serde_json::Map::new();
    if let Some(outputs) = outputs {
        report_vertices(args.json, d3d, &outputs, &mut report)?;
    }
    report_buffers(args.json, d3d, &res, report)?;
    Ok(ExitCode::SUCCESS)
}

/// Per vertex, per output register: the four words of a vertex run.
type VertexOutputs = Vec<Vec<[u32; 4]>>;

/// `tgsi run --engine vulkan`: the compute shader translated to SPIR-V and
/// dispatched (or the vertex shader run over its vertices, nothing
/// rasterized) on the Vulkan device `--device` names (the first one
/// without it), its outputs and buffers printed as the machine's are.
fn run_on_vulkan(args: &RunArgs, loaded: &super::input::RunnableShader) -> Result<ExitCode> {
    let name = &loaded.name;
    let (shader, d3d) = (&loaded.shader, loaded.d3d.as_ref());
    if !matches!(shader.processor, Processor::Compute | Processor::Vertex) {
        bail!(
            "{name}: the Vulkan engine runs compute and vertex shaders; this is a {} shader",
            shader.processor
        );
    }
    if !args.io.system_values.is_empty() {
        bail!(
            "{name}: --sv is not given to the Vulkan engine (a device computes its system values; CS_USER_DATA_AMD is pushed as zeros)"
        );
    }
    let device = super::open_vulkan_device()?;
    eprintln!(
        "{name}: note: running on the Vulkan device {}",
        device.name()
    );
    let (mut res, (vertex_rows, attrs)) = bind_resources(args)?;
    let mut failed = None;
    let mut outputs = None;
    let mut run = |r: &mut Resources| {
        let ran = if shader.processor == Processor::Compute {
            let groups = parse_three(&args.io.groups, "--groups")?;
            let dispatch = tgsi::vulkan::Dispatch {
                shader,
                direct3d: d3d.is_some(),
                groups,
                timeout_ms: 60_000,
            };
            device.dispatch(&dispatch, r)
        } else {
            let count = args.io.vertices.unwrap_or(vertex_rows.len().max(1));
            if count > 1 << 24 {
                bail!("--vertices {count}: at most 16777216");
            }
            let inputs = vertex_inputs(args, name, d3d, &vertex_rows, &attrs, count)?;
            device
                .run_vertices(shader, d3d.is_some(), &inputs, count as u32, r)
                .map(|o| outputs = Some(o))
        };
        if let Err(e) = ran {
            failed = Some(e);
        }
        Ok(())
    };
    let mut ran = Ok(());
    let mut bound = |r: &mut Resources| {
        ran = run(r);
        Ok(())
    };
    match d3d {
        Some(d) => d.bind(&mut res, &mut bound),
        None => bound(&mut res),
    }
    .map_err(|e: tgsi::exec::ExecError| anyhow!("{name}: {e}"))?;
    ran?;
    if let Some(e) = failed {
        bail!("{name}: {e}");
    }
    let mut report = serde_json::Map::new();
    if let Some(outputs) = &outputs {
        report_vertices(args.json, d3d, outputs, &mut report)?;
    }
    report_buffers(args.json, d3d, &res, report)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `program` (compiled from `loaded`) as `args` say: a compute
/// dispatch, or a vertex run whose outputs come back. The resources after
/// the run.
pub(super) fn execute(
    args: &RunArgs,
    loaded: &super::input::RunnableShader,
    program: &tgsi::exec::Program,
) -> Result<(Resources, Option<VertexOutputs>)> {
    let (name, shader, d3d) = (&loaded.name, &loaded.shader, loaded.d3d.as_ref());
    // Runs on the machine with the resources where the shader reads them;
    // an error in a Direct3D program also names the Direct3D instruction.
    let bound =
        |res: &mut Resources,
         f: &mut dyn FnMut(&mut Resources) -> Result<(), tgsi::exec::ExecError>| match d3d {
            Some(d) => d.run_bound(res, f),
            None => f(res),
        };
    let (mut res, (vertex_rows, attrs)) = bind_resources(args)?;
    let limits = Limits {
        max_instructions: args.budget,
        max_dispatch_instructions: args.dispatch_budget,
        threads: args.threads.max(1),
        ..Limits::default()
    };
    match shader.processor {
        Processor::Compute => {
            let [x, y, z] = parse_three(&args.io.groups, "--groups")?;
            bound(&mut res, &mut |r| program.dispatch(r, [x, y, z], &limits))
                .map_err(|e| loaded.run_error(&e))?;
            Ok((res, None))
        }
        Processor::Vertex => {
            let count = args.io.vertices.unwrap_or(if vertex_rows.is_empty() {
                1
            } else {
                vertex_rows.len()
            });
            if count > 1 << 24 {
                bail!("--vertices {count}: at most 16777216");
            }
            let inputs = vertex_inputs(args, name, d3d, &vertex_rows, &attrs, count)?;
            let mut outputs = Vec::new();
            bound(&mut res, &mut |r| {
                outputs = program.run_vertices(r, &inputs, count, &limits)?;
                Ok(())
            })
            .map_err(|e| loaded.run_error(&e))?;
            Ok((res, Some(outputs)))
        }
        Processor::Fragment => bail!(
            "{name}: `tgsi run` runs compute and vertex shaders; draw a pixel shader with `tgsi render` (or `draw quad` in a .shader_test file)"
        ),
        other => {
            bail!("{name}: `tgsi run` runs compute and vertex shaders; this is a {other} shader")
        }
    }
}

/// `X,Y,Z` → three numbers (`what` names the option in errors).
pub(super) fn parse_three(text: &str, what: &str) -> Result<[u32; 3]> {
    let v: Vec<u32> = text
        .split(',')
        .map(|s| match s.trim().parse::<u64>() {
            Ok(n) => u32::try_from(n)
                .map_err(|_| anyhow!("{what} `{text}`: {n} is larger than 4294967295")),
            Err(_) => Err(anyhow!("{what} `{text}`: expected X,Y,Z (whole numbers)")),
        })
        .collect::<Result<_>>()?;
    v.try_into()
        .map_err(|_| anyhow!("{what} `{text}`: expected three numbers X,Y,Z"))
}

/// Most bytes the buffers given on the command line hold in all (as a
/// `.shader_test` file's resources).
const MAX_GIVEN_BYTES: usize = 1 << 30;

/// A `[vertex data]` section's rows and attributes.
type VertexData = (Vec<Vec<[u32; 4]>>, Vec<Attribute>);

/// The resources `--data`, `--const`, `--buffer`, `--buffer-size` and
/// `--sv` give, with the vertex rows and attributes of a `[vertex data]`.
fn bind_resources(args: &RunArgs) -> Result<(Resources, VertexData)> {
    let mut res = Resources::default();
    let mut vertex_rows: Vec<Vec<[u32; 4]>> = Vec::new();
    let mut attrs: Vec<Attribute> = Vec::new();
    if let Some(data) = &args.io.data {
        let (data_name, file) = read_data_file(data)?;
        for (line, section) in &file.sections {
            match section {
                Section::Constant { index, words } => {
                    *slot(&mut res.constants, *index as usize)? = words.clone()
                }
                Section::Buffer { index, size, words } => {
                    let mut bytes = words_to_bytes(words);
                    if let Some(size) = size {
                        bytes.resize(*size as usize, 0);
                    }
                    *slot(&mut res.buffers, *index as usize)? = bytes;
                }
                Section::VertexData(vd) => {
                    attrs = vd.attributes.iter().map(|a| a.0.clone()).collect();
                    vertex_rows = vd.rows.clone();
                }
                _ => bail!(
                    "{data_name}:{line}:1: only [constant N], [buffer N] and [vertex data] sections belong in a data file"
                ),
            }
        }
    }
    for spec in &args.io.constants {
        let (i, words) = parse_typed(spec, "--const")?;
        *slot(&mut res.constants, i)? = words;
    }
    for spec in &args.io.buffers {
        let (i, words) = parse_typed(spec, "--buffer")?;
        *slot(&mut res.buffers, i)? = words_to_bytes(&words);
    }
    for spec in &args.io.buffer_sizes {
        let (i, n) = spec
            .split_once('=')
            .ok_or_else(|| anyhow!("--buffer-size `{spec}`: expected N=BYTES"))?;
        let i: usize = i
            .trim()
            .parse()
            .map_err(|_| anyhow!("--buffer-size `{spec}`: `{i}` is not an index"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| anyhow!("--buffer-size `{spec}`: `{n}` is not a size in bytes"))?;
        if n > MAX_GIVEN_BYTES {
            bail!("--buffer-size `{spec}`: at most 1 GiB");
        }
        let others: usize = (res.buffers.iter().enumerate())
            .filter(|(k, _)| *k != i)
            .map(|(_, b)| b.len())
            .sum();
        if others + n > MAX_GIVEN_BYTES {
            bail!(
                "--buffer-size `{spec}`: the buffers would hold {} bytes in all; at most 1 GiB",
                others + n
            );
        }
        slot(&mut res.buffers, i)?.resize(n, 0);
    }
    for spec in &args.io.system_values {
        res.system_values.push(parse_system_value(spec)?);
    }
    Ok((res, (vertex_rows, attrs)))
}

/// Each vertex's input registers: the `[vertex data]` rows (through the
/// Direct3D input signature for a Direct3D shader), then `--input`.
/// How many IN registers a vertex can be given (the machine's register-file limit).
const MAX_INPUT_REGISTER: usize = tgsi::exec::decode::MAX_FILE_ENTRIES as usize;

fn vertex_inputs(
    args: &RunArgs,
    name: &str,
    d3d: Option<&tgsi::shader_test::d3d::D3dShader>,
    vertex_rows: &[Vec<[u32; 4]>],
    attrs: &[Attribute],
    count: usize,
) -> Result<Vec<Vec<[u32; 4]>>> {
    let mut cli_inputs: Vec<(usize, [u32; 4])> = Vec::new();
    for spec in &args.io.inputs {
        let (i, w) = parse_typed(spec, "--input")?;
        let four: [u32; 4] = w.as_slice().try_into().map_err(|_| {
            anyhow!(
                "--input `{spec}`: expected four 32-bit values, found {}",
                w.len()
            )
        })?;
        if i >= MAX_INPUT_REGISTER {
            bail!(
                "--input `{spec}`: IN[{i}] is past the machine's {MAX_INPUT_REGISTER} input registers"
            );
        }
        cli_inputs.push((i, four));
    }
    let rows: Vec<Vec<[u32; 4]>> = (0..count)
        .map(|v| vertex_rows.get(v).cloned().unwrap_or_default())
        .collect();
    let mut inputs: Vec<Vec<[u32; 4]>> = match d3d {
        Some(d) if !vertex_rows.is_empty() => d
            .vertex_inputs(attrs, &rows)
            .map_err(|e| anyhow!("{name}: {e}"))?,
        Some(d) => d
            .vertex_inputs(&[], &rows)
            .map_err(|e| anyhow!("{name}: {e}"))?,
        None => {
            let mut registers = Vec::new();
            for a in attrs {
                match a {
                    Attribute::Input(n) if *n as usize >= MAX_INPUT_REGISTER => bail!(
                        "{name}: the attribute {a} is past the machine's {MAX_INPUT_REGISTER} input registers"
                    ),
                    Attribute::Input(n) => registers.push(*n as usize),
                    Attribute::Semantic(..) => bail!(
                        "{name}: the attribute {a} names a Direct3D input; a TGSI vertex shader reads IN[n]"
                    ),
                }
            }
            rows.iter()
                .map(|row| {
                    let width = registers.iter().map(|r| r + 1).max().unwrap_or(0);
                    let mut regs = vec![[0u32; 4]; width];
                    for (r, value) in registers.iter().zip(row) {
                        regs[*r] = *value;
                    }
                    regs
                })
                .collect()
        }
    };
    for row in &mut inputs {
        for (i, value) in &cli_inputs {
            if row.len() <= *i {
                row.resize(*i + 1, [0; 4]);
            }
            row[*i] = *value;
        }
    }
    Ok(inputs)
}

/// Prints each vertex's outputs (`OUT[k]`, or the `o#` registers of a
/// Direct3D shader), or puts them in the JSON report.
fn report_vertices(
    json: bool,
    d3d: Option<&tgsi::shader_test::d3d::D3dShader>,
    outputs: &[Vec<[u32; 4]>],
    report: &mut serde_json::Map<String, serde_json::Value>,
) -> Result<()> {
    // Direct3D shaders: the `o#` registers.
    let registers: Vec<u32> = d3d.map_or(Vec::new(), |d| {
        let mut r: Vec<u32> = d
            .lowered
            .outputs
            .iter()
            .filter(|c| c.d3d_file == tgsi::d3d::enums::RegisterFile::Output)
            .map(|c| c.d3d_register)
            .collect();
        r.sort_unstable();
        r.dedup();
        r
    });
    let outputs: Vec<Vec<(String, [u32; 4])>> = outputs
        .iter()
        .map(|outs| match d3d {
            Some(d) => registers
                .iter()
                .filter_map(|&k| d.output_register(outs, k).map(|v| (format!("o{k}"), v)))
                .collect(),
            None => outs
                .iter()
                .enumerate()
                .map(|(k, v)| (format!("OUT[{k}]"), *v))
                .collect(),
        })
        .collect();
    if json {
        let list: Vec<Vec<[u32; 4]>> = outputs
            .iter()
            .map(|o| o.iter().map(|(_, v)| *v).collect())
            .collect();
        report.insert("vertices".into(), json!(list));
        if d3d.is_some() {
            report.insert("outputs".into(), json!(registers));
        }
    } else {
        let mut out = std::io::stdout().lock();
        for (v, outs) in outputs.iter().enumerate() {
            for (label, value) in outs {
                writeln!(out, "vertex {v} {label}")?;
                for (c, w) in value.iter().enumerate() {
                    writeln!(out, "  {}: {}", ['x', 'y', 'z', 'w'][c], describe(*w))?;
                }
            }
        }
    }
    Ok(())
}

/// Prints every non-empty buffer after the run, or the whole JSON report.
fn report_buffers(
    json: bool,
    d3d: Option<&tgsi::shader_test::d3d::D3dShader>,
    res: &Resources,
    mut report: serde_json::Map<String, serde_json::Value>,
) -> Result<()> {
    let buffers: Vec<(usize, String, Vec<u32>)> = res
        .buffers
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .filter_map(|(i, b)| {
            let label = match d3d {
                Some(d) => buffer_label(d, i)?,
                None => format!("BUFFER[{i}]"),
            };
            Some((
                i,
                label,
                b.chunks(4)
                    .map(|c| {
                        let mut w = [0u8; 4];
                        w[..c.len()].copy_from_slice(c);
                        u32::from_le_bytes(w)
                    })
                    .collect(),
            ))
        })
        .collect();
    if json {
        let list: Vec<_> = buffers
            .iter()
            .map(|(i, label, w)| json!({"index": i, "name": label, "words": w}))
            .collect();
        report.insert("buffers".into(), json!(list));
        writeln!(
            std::io::stdout().lock(),
            "{}",
            serde_json::to_string_pretty(&report)?
        )?;
    } else {
        let mut out = std::io::stdout().lock();
        for (i, label, words) in &buffers {
            writeln!(out, "{label} ({} bytes)", res.buffers[*i].len())?;
            for (k, w) in words.iter().enumerate() {
                writeln!(out, "  +{:<6} {}", k * 4, describe(*w))?;
            }
        }
    }
    Ok(())
}

/// The name of buffer `index` after a Direct3D run: `uN`, `uN counter`, or
/// `None` for the copy of a raw or structured `tN` the run read.
fn buffer_label(d3d: &tgsi::shader_test::d3d::D3dShader, index: usize) -> Option<String> {
    use tgsi::d3d::lower::D3dSlot;
    use tgsi::enums::File;
    for b in &d3d.lowered.bindings {
        if b.index as usize != index || b.file != File::Buffer {
            continue;
        }
        match b.slot {
            D3dSlot::Texture { .. } => return None,
            D3dSlot::UavCounter { register, .. } => return Some(format!("u{register} counter")),
            _ => {}
        }
    }
    Some(format!("u{index}"))
}

pub fn test(paths: &[PathBuf], threads: usize, verbose: bool) -> Result<ExitCode> {
    let vulkan = if super::vulkan_engine() {
        let device = super::open_vulkan_device()?;
        eprintln!(
            "note: running on the Vulkan device {} (tests it cannot run are skipped as not runnable on Vulkan; -v lists them)",
            device.name()
        );
        Some(shader_test::test_device(device))
    } else {
        None
    };
    let config = RunConfig {
        limits: Limits {
            threads: threads.max(1),
            ..Limits::default()
        },
        verbose,
        trace: None,
        vulkan,
    };
    let mut out = std::io::stdout().lock();
    let summary = shader_test::run_paths(paths, &config, &mut out);
    Ok(if summary.success() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
