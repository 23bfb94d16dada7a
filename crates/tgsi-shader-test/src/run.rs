//! Running a parsed [`TestFile`]: shaders are assembled as their sections are
//! met, resources are built from the sections above each `[test]`, and every
//! `[test]` becomes one passed, failed or skipped result.
//!
//! `draw quad` renders into an rgba32f target with [`Draw::full_quad`];
//! pixel probes read that target, `probe image` the image after the test's
//! commands so far (images, like buffers, start from their section contents
//! in every test). Textures and samplers are converted by
//! [`super::textures`]; a section the machine cannot hold (an error there)
//! fails the tests below it.

use super::d3d::{BuildError, D3dShader, check_assembly, check_container, parse_hex};
use super::parse::{
    Attribute, Command, Compare, Expected, RenderTargetSection, Requirement, Section,
    ShaderLanguage, ShaderSection, Stage, TestFile, TestSection, VertexData,
};
use super::targets::{Frame, pixel_matches, pixel_values, resolved_texel};
use super::textures::{sampler_from_section, texture_from_section};
use super::values::{ValueType, parse_value};
use super::values::{format_list, values_match, words_to_values};
use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use tgsi_exec::texture::format::NumClass;
use tgsi_exec::texture::{Sampler, Texture};
use tgsi_exec::{ExecError, Limits, Numerics, Program, Resources};
use tgsi_ir::diag::{Diagnostic, Diagnostics};
use tgsi_ir::enums::{Processor, TextureTarget};
use tgsi_ir::ir::{Shader, Span};
use tgsi_ir::opcode::Category;
use tgsi_pipeline::{DepthFormat, DepthTarget};

use super::qualifiers::SHADER_MODEL;

mod draw;
mod quad;
pub use super::report::{FileReport, Outcome, Summary, TestResult};
pub use super::trace::TraceRequest;

/// How to run tests.
#[derive(Clone, Debug, Default)]
pub struct RunConfig {
    pub limits: Limits,
    /// Also print skipped tests and their reasons.
    pub verbose: bool,
    /// Follow one invocation of one command (`tgsi debug FILE --test N`).
    pub trace: Option<std::sync::Arc<TraceRequest>>,
    /// Run the shaders on this Vulkan device instead of the machine
    /// (`tgsi test --engine vulkan`): the commands it cannot run make
    /// their test "not runnable on Vulkan" (skipped, with the reason).
    pub vulkan: Option<std::sync::Arc<tgsi_vulkan::Device>>,
}

/// A shader ready to run: the machine's program and, for a Direct3D
/// shader, its lowering (bindings and input/output maps).
pub(crate) struct Runnable {
    pub(crate) program: Program,
    pub(crate) d3d: Option<D3dShader>,
    /// The IR the program was compiled from (what a Vulkan device runs).
    pub(crate) shader: Shader,
}

impl Runnable {
    /// Runs `run` with the resources where this shader reads them.
    pub(crate) fn bind<T>(&self, res: &mut Resources, run: impl FnOnce(&mut Resources) -> T) -> T {
        match &self.d3d {
            Some(d) => d.bind(res, run),
            None => run(res),
        }
    }

    /// Runs `run` on the machine with the resources where this shader reads
    /// them; an error of a Direct3D shader also names the Direct3D
    /// instruction it happened in.
    pub(crate) fn run_bound<T>(
        &self,
        res: &mut Resources,
        run: impl FnOnce(&mut Resources) -> Result<T, ExecError>,
    ) -> Result<T, ExecError> {
        match &self.d3d {
            Some(d) => d.run_bound(res, run),
            None => run(res),
        }
    }
}

/// The outputs of `run vertices` (per vertex, per TGSI output) and the
/// shader that wrote them.
type VertexRun = (Vec<Vec<[u32; 4]>>, Rc<Runnable>);

/// What the commands of one running test work on: the resources, targets
/// and render state it started from, as its commands so far left them, and
/// the outputs of its last `run vertices`.
struct TestRun {
    res: Resources,
    frame: Frame,
    depth: Option<DepthTarget>,
    outputs: Option<VertexRun>,
    render_state: tgsi_pipeline::RenderState,
}

/// What assembling a shader section gave.
#[derive(Clone)]
enum Built {
    Ready(Rc<Runnable>),
    /// A `fail` section that assembled (it is never run).
    Assembled,
    /// Rejected, with the rendered diagnostics.
    Rejected(String),
    /// Valid, but the machine cannot run it yet.
    Unsupported(String),
}

struct Slot {
    section: ShaderSection,
    built: Built,
    /// A failure of this shader was already reported (or expected by `expect error`).
    reported: bool,
    /// Why the requirements in force at the section skip what it is judged
    /// by (an unknown or unmet `[require]` line): then it neither passes
    /// nor fails on its own.
    skip: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum LastShader {
    Fail,
    Stage(Stage),
}

struct Runner<'a> {
    file: &'a TestFile,
    config: &'a RunConfig,
    results: Vec<TestResult>,
    requirements: Vec<(usize, Requirement)>,
    slots: HashMap<Stage, Slot>,
    pending_fail: Option<(Slot, bool)>,
    last: Option<LastShader>,
    constants: Vec<Vec<u32>>,
    buffers: Vec<Vec<u8>>,
    /// `[texture N]` and `[image N]` resources, or why one cannot be built
    /// (with the section's line).
    textures: Vec<Option<Result<Texture, (usize, String)>>>,
    images: Vec<Option<Result<Texture, (usize, String)>>>,
    samplers: Vec<Sampler>,
    vertex_data: Option<VertexData>,
    render_targets: Vec<Option<RenderTargetSection>>,
    /// The drawing pipeline's state as the commands so far left it.
    render_state: tgsi_pipeline::RenderState,
    index_data: Option<Vec<u32>>,
    /// `[depth target]`: format and size, with the section's line.
    depth_section: Option<(usize, String, [u32; 2])>,
    /// Why the running test's last command could not run on the Vulkan
    /// device (the test is then not runnable there, not failed).
    not_runnable: Option<String>,
}

fn set_slot<T: Clone>(v: &mut Vec<T>, index: usize, fill: T, value: T) {
    if v.len() <= index {
        v.resize(index + 1, fill);
    }
    v[index] = value;
}

/// Runs every test of a parsed file.
pub fn run_file(file: &TestFile, config: &RunConfig) -> FileReport {
    let mut r = Runner {
        file,
        config,
        results: Vec::new(),
        requirements: Vec::new(),
        slots: HashMap::new(),
        pending_fail: None,
        last: None,
        constants: Vec::new(),
        buffers: Vec::new(),
        textures: Vec::new(),
        images: Vec::new(),
        samplers: Vec::new(),
        vertex_data: None,
        render_targets: Vec::new(),
        render_state: tgsi_pipeline::RenderState::default(),
        index_data: None,
        depth_section: None,
        not_runnable: None,
    };
    for (line, section) in &file.sections {
        match section {
            Section::Require(reqs) => r.requirements = reqs.clone(),
            Section::Shader(s) => r.shader_section(s),
            Section::Constant { index, words } => {
                let i = *index as usize;
                if r.constants.len() <= i {
                    r.constants.resize(i + 1, Vec::new());
                }
                r.constants[i] = words.clone();
            }
            Section::Buffer { index, size, words } => {
                let i = *index as usize;
                if r.buffers.len() <= i {
                    r.buffers.resize(i + 1, Vec::new());
                }
                let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                if let Some(s) = size {
                    bytes.resize(*s as usize, 0);
                }
                r.buffers[i] = bytes;
            }
            Section::Texture(t) => {
                let built = texture_from_section(t).map_err(|e| (*line, e));
                let list = if t.image {
                    &mut r.images
                } else {
                    &mut r.textures
                };
                set_slot(list, t.index as usize, None, Some(built));
            }
            Section::Sampler(s) => set_slot(
                &mut r.samplers,
                s.index as usize,
                Sampler::default(),
                sampler_from_section(s),
            ),
            Section::VertexData(v) => r.vertex_data = Some(v.clone()),
            Section::RenderTarget(t) => set_slot(
                &mut r.render_targets,
                t.index as usize,
                None,
                Some(t.clone()),
            ),
            Section::IndexData(ix) => r.index_data = Some(ix.clone()),
            Section::DepthTarget { format, size } => {
                r.depth_section = Some((*line, format.clone(), *size))
            }
            Section::Test(t) => {
                let outcome = r.test(t);
                r.results.push(TestResult {
                    line: *line,
                    outcome,
                });
            }
        }
    }
    r.finish_pending_fail();
    let mut stages: Vec<Stage> = r.slots.keys().copied().collect();
    stages.sort_by_key(|s| r.slots[s].section.line);
    for s in stages {
        if let Some(slot) = r.slots.remove(&s) {
            r.finish_slot(slot);
        }
    }
    r.results.sort_by_key(|t| t.line);
    FileReport {
        name: file.name.clone(),
        results: r.results,
    }
}

/// The stages a draw runs, in pipeline order.
const DRAW_STAGES: [Stage; 5] = [
    Stage::Vertex,
    Stage::TessControl,
    Stage::TessEval,
    Stage::Geometry,
    Stage::Fragment,
];

fn processor_of(stage: Stage) -> Processor {
    match stage {
        Stage::Vertex => Processor::Vertex,
        Stage::Fragment => Processor::Fragment,
        Stage::Geometry => Processor::Geometry,
        Stage::TessControl => Processor::TessCtrl,
        Stage::TessEval => Processor::TessEval,
        Stage::Compute => Processor::Compute,
    }
}

/// Whether `cmd` runs shaders (a dispatch or draw command, as `tgsi debug
/// --test N` counts them).
fn runs_shaders(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::Dispatch(_)
            | Command::RunVertices(_)
            | Command::DrawQuad { .. }
            | Command::Draw { .. }
    )
}

/// The rejection of a Direct3D program whose type is not the section's
/// stage (a library runs in the stage that links it: never wrong here).
fn wrong_d3d_stage(version: tgsi_d3d::ir::Version, stage: Stage) -> Option<String> {
    use tgsi_d3d::enums::ProgramType as P;
    let fits = match version.program_type {
        P::Pixel => stage == Stage::Fragment,
        P::Vertex => stage == Stage::Vertex,
        P::Geometry => stage == Stage::Geometry,
        P::Hull => stage == Stage::TessControl,
        P::Domain => stage == Stage::TessEval,
        P::Compute => stage == Stage::Compute,
        P::Library => true,
    };
    (!fits).then(|| wrong_stage_text(version, stage))
}

fn wrong_stage_text(version: tgsi_d3d::ir::Version, stage: Stage) -> String {
    format!(
        "error: a [{} shader] section holds a {}_{}_{} program\n",
        stage.name(),
        version.program_type.name(),
        version.major,
        version.minor
    )
}

/// Why the machine cannot run this shader yet (bindless handles).
fn unsupported_feature(shader: &Shader) -> Option<String> {
    shader
        .instructions()
        .find(|i| matches!(i.opcode.info().category, Category::Bindless))
        .map(|i| format!("{} is not supported by the machine yet", i.opcode))
}

fn panic_text(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

/// `message` with each `byte offset N (0x…)` it names followed by where
/// that byte's word is written (`, FILE:LINE:COLUMN`), from `place`.
fn place_offsets(message: &str, place: impl Fn(usize) -> Option<String>) -> String {
    const MARK: &str = "byte offset ";
    let mut out = String::new();
    let mut rest = message;
    while let Some(k) = rest.find(MARK) {
        let after = &rest[k + MARK.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let offset = after[..digits].parse::<usize>().ok();
        // through the offset and its `(0x…)`, if it has one
        let mut end = k + MARK.len() + digits;
        if rest[end..].starts_with(" (0x")
            && let Some(close) = rest[end..].find(')')
        {
            end += close + 1;
        }
        out.push_str(&rest[..end]);
        if let Some(at) = offset.and_then(&place) {
            out.push_str(&format!(" at {at}"));
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

fn shift_span(span: Span, by: usize) -> Span {
    Span::new(span.start + by, span.end + by)
}

impl Runner<'_> {
    fn at(&self, line: usize) -> String {
        format!("{}:{}", self.file.name, line)
    }

    /// Renders diagnostics of a shader body against the whole file, so that
    /// their lines are lines of the test file.
    fn render(&self, section: &ShaderSection, diags: &Diagnostics) -> String {
        let shifted: Vec<Diagnostic> = diags
            .0
            .iter()
            .map(|d| {
                let mut d = d.clone();
                if let Some(p) = &mut d.primary {
                    p.span = shift_span(p.span, section.body_offset);
                }
                for s in &mut d.secondary {
                    s.span = shift_span(s.span, section.body_offset);
                }
                d
            })
            .collect();
        tgsi_ir::diag::render(&shifted, &self.file.name, &self.file.source)
    }

    fn build(&self, section: &ShaderSection) -> Built {
        let direct3d = match section.language {
            ShaderLanguage::Tgsi => super::d3d::is_assembly(&section.body),
            ShaderLanguage::D3dAsm | ShaderLanguage::DxbcTpfHex => true,
        };
        if direct3d {
            return match catch_unwind(AssertUnwindSafe(|| self.build_d3d(section))) {
                Ok(built) => built,
                Err(p) => Built::Rejected(format!(
                    "the Direct3D front end panicked: {}",
                    panic_text(p)
                )),
            };
        }
        let assembled = catch_unwind(AssertUnwindSafe(|| tgsi_text::assemble(&section.body)));
        let shader = match assembled {
            Err(p) => return Built::Rejected(format!("the assembler panicked: {}", panic_text(p))),
            Ok(Err(diags)) => return Built::Rejected(self.render_diagnostics(section, &diags)),
            Ok(Ok((shader, _map))) => shader,
        };
        if shader.processor != processor_of(section.stage) {
            return Built::Rejected(format!(
                "error: a [{} shader] section holds a {} shader\n",
                section.stage.name(),
                shader.processor
            ));
        }
        if section.fail {
            // Only the assembler and the validator judge `fail` sections.
            return Built::Assembled;
        }
        self.compile(&shader, None, section.stage)
    }

    fn render_diagnostics(&self, section: &ShaderSection, diags: &Diagnostics) -> String {
        let text = self.render(section, diags);
        if text.trim().is_empty() {
            format!("error: {diags}\n")
        } else {
            text
        }
    }

    /// `d3d-asm` and `dxbc-tpf-hex` sections (and TGSI sections that hold
    /// SM assembly): check, then lower and compile.
    fn build_d3d(&self, section: &ShaderSection) -> Built {
        let checked = match section.language {
            ShaderLanguage::DxbcTpfHex => {
                let name = format!("{} (dxbc-tpf-hex section)", self.at(section.line));
                let first = tgsi_ir::diag::line_col(&self.file.source, section.body_offset).0;
                let at = |(line, column): (usize, usize)| {
                    format!("{}:{column}", self.at(first + line - 1))
                };
                match parse_hex(&section.body) {
                    Err((line, column, e)) => Err(BuildError::Message(format!(
                        "error: {}: {e} (dxbc-tpf-hex section)\n",
                        at((line, column))
                    ))),
                    Ok(words) => check_container(&words.bytes, &name).map_err(|e| match e {
                        BuildError::Message(m) => {
                            BuildError::Message(place_offsets(&m, |o| words.place_of(o).map(at)))
                        }
                        text => text,
                    }),
                }
            }
            _ => check_assembly(&section.body),
        };
        let checked = match checked {
            Ok(c) => c,
            Err(BuildError::Text(diags)) => {
                return Built::Rejected(self.render_diagnostics(section, &diags));
            }
            Err(BuildError::Message(m)) => return Built::Rejected(m),
        };
        let version = checked.program.version;
        if let Some(wrong) = wrong_d3d_stage(version, section.stage) {
            return Built::Rejected(wrong);
        }
        if section.fail {
            return Built::Assembled;
        }
        let d3d = match D3dShader::lower(checked) {
            Ok(d) => d,
            Err(BuildError::Text(diags)) => {
                return Built::Rejected(self.render_diagnostics(section, &diags));
            }
            Err(BuildError::Message(m)) => return Built::Rejected(m),
        };
        let shader = d3d.lowered.shader.clone();
        if shader.processor != processor_of(section.stage) {
            return Built::Rejected(wrong_stage_text(version, section.stage));
        }
        self.compile(&shader, Some(d3d), section.stage)
    }

    /// Compiles a valid shader for the machine (or says why it cannot run).
    fn compile(&self, shader: &Shader, d3d: Option<D3dShader>, stage: Stage) -> Built {
        if let Some(why) = unsupported_feature(shader) {
            let why = match &d3d {
                Some(_) => format!("{why} (the Direct3D program lowers to TGSI)"),
                None => why,
            };
            return Built::Unsupported(why);
        }
        let numerics = if d3d.is_some() {
            Numerics::Direct3D
        } else {
            Numerics::Ieee
        };
        let traced = self.config.trace.as_ref().filter(|t| t.stage == stage);
        let compile = || match traced {
            Some(t) => Program::compile_with(shader, numerics).map(|mut p| {
                p.set_tracer(t.tracer.clone());
                p
            }),
            None => tgsi_jit::compile(shader, numerics),
        };
        match catch_unwind(AssertUnwindSafe(compile)) {
            Err(p) => Built::Rejected(format!(
                "the machine panicked preparing the shader: {}",
                panic_text(p)
            )),
            Ok(Err(e)) => Built::Rejected(format!("error: the machine rejected the shader: {e}\n")),
            Ok(Ok(program)) => {
                if self.config.verbose
                    && let Some(why) = program.fallback_reason()
                {
                    eprintln!(
                        "{}: note: the interpreter runs this shader: {why}",
                        self.file.name
                    );
                }
                Built::Ready(Rc::new(Runnable {
                    program,
                    d3d,
                    shader: shader.clone(),
                }))
            }
        }
    }

    fn shader_section(&mut self, section: &ShaderSection) {
        self.finish_pending_fail();
        let built = self.build(section);
        let slot = Slot {
            section: section.clone(),
            built,
            reported: false,
            skip: self.requirement_problem(),
        };
        if section.fail {
            self.pending_fail = Some((slot, false));
            self.last = Some(LastShader::Fail);
        } else {
            if let Some(old) = self.slots.insert(section.stage, slot) {
                self.finish_slot(old);
            }
            self.last = Some(LastShader::Stage(section.stage));
        }
    }

    /// A `fail` section no `expect error` looked at is a test of its own.
    fn finish_pending_fail(&mut self) {
        let Some((slot, consumed)) = self.pending_fail.take() else {
            return;
        };
        if self.last == Some(LastShader::Fail) {
            self.last = None;
        }
        if consumed {
            return;
        }
        let line = slot.section.line;
        let outcome = if let Some(why) = &slot.skip {
            Outcome::Skipped(why.clone())
        } else {
            match &slot.built {
                Built::Rejected(_) => Outcome::Passed,
                Built::Unsupported(why) => Outcome::Skipped(why.clone()),
                Built::Ready(..) | Built::Assembled => Outcome::Failed(vec![format!(
                    "{}: the {} shader was expected to be rejected, but it assembled",
                    self.at(line),
                    slot.section.stage.name()
                )]),
            }
        };
        self.results.push(TestResult { line, outcome });
    }

    /// A shader that does not assemble and that no test reported is a failed test.
    fn finish_slot(&mut self, slot: Slot) {
        if slot.skip.is_some() {
            return;
        }
        if let (Built::Rejected(text), false) = (&slot.built, slot.reported) {
            let msg = format!(
                "{}: the {} shader does not assemble:\n{}",
                self.at(slot.section.line),
                slot.section.stage.name(),
                text
            );
            self.results.push(TestResult {
                line: slot.section.line,
                outcome: Outcome::Failed(vec![msg]),
            });
        }
    }

    fn requirement_problem(&self) -> Option<String> {
        for (line, req) in &self.requirements {
            match req {
                Requirement::Doubles | Requirement::Int64 => {}
                Requirement::ShaderModel(cmp, model) => {
                    let ok = match cmp {
                        Compare::Less => SHADER_MODEL < *model,
                        Compare::LessEqual => SHADER_MODEL <= *model,
                        Compare::Equal => SHADER_MODEL == *model,
                        Compare::GreaterEqual => SHADER_MODEL >= *model,
                        Compare::Greater => SHADER_MODEL > *model,
                    };
                    if !ok {
                        return Some(format!(
                            "line {}: requires a shader model the runner does not offer (it offers {}.{})",
                            line,
                            SHADER_MODEL / 10,
                            SHADER_MODEL % 10
                        ));
                    }
                }
                Requirement::Unknown(text) => {
                    return Some(format!("line {}: unknown requirement `{text}`", line));
                }
            }
        }
        None
    }

    /// Why a test cannot run yet, if it cannot. Render state is followed
    /// through the commands, as it would be set when they run.
    fn skip_reason(&self, test: &TestSection) -> Option<String> {
        if let Some(why) = self.requirement_problem() {
            return Some(why);
        }
        for (line, cmd) in &test.commands {
            if let Command::Draw { .. } = cmd {
                for stage in DRAW_STAGES {
                    if let Some(Built::Unsupported(why)) = self.slots.get(&stage).map(|s| &s.built)
                    {
                        return Some(format!("line {line}: {why}"));
                    }
                }
                continue;
            }
            let stage = match cmd {
                Command::Dispatch(_) => Stage::Compute,
                Command::DrawQuad { .. } => Stage::Fragment,
                Command::RunVertices(_) => Stage::Vertex,
                _ => continue,
            };
            if let Some(Built::Unsupported(why)) = self.slots.get(&stage).map(|s| &s.built) {
                return Some(format!("line {line}: {why}"));
            }
        }
        None
    }

    fn test(&mut self, test: &TestSection) -> Outcome {
        let skip = self.skip_reason(test);
        let render_state = self.carry_render_state(test);
        if let Some(why) = skip {
            // A skipped `expect error` still stands for the shader it names.
            if test
                .commands
                .iter()
                .any(|(_, c)| matches!(c, Command::ExpectError(_)))
            {
                self.mark_last_checked();
            }
            self.pass_over(&test.commands, &format!("its test is skipped: {why}"));
            return Outcome::Skipped(why);
        }
        let device = self.config.vulkan.clone();
        let mut judged = super::vulkan::Judged::start(device.as_deref());
        let mut failures = Vec::new();
        let mut run = match self.start_test(test, render_state) {
            Ok(run) => run,
            Err(msg) => {
                self.pass_over(&test.commands, "its test could not start");
                return Outcome::Failed(vec![msg]);
            }
        };
        for (k, (line, cmd)) in test.commands.iter().enumerate() {
            let line = *line;
            if let Some(checked) = self.check(&run, cmd, line) {
                // A probe that fails does not stop the test.
                if let Err(msg) = checked {
                    judged.probe_failed(msg, &mut failures);
                }
                continue;
            }
            if let Err(msg) = self.act(&mut run, cmd, line) {
                if let Some(why) = self.not_runnable.take() {
                    return Outcome::Skipped(format!(
                        "line {line}: {}: {why}",
                        super::vulkan::NOT_RUNNABLE
                    ));
                }
                // A command that could not run ends the test.
                failures.push(msg);
                self.pass_over(
                    &test.commands[k + 1..],
                    &format!("an earlier command of its test (line {line}) could not run"),
                );
                break;
            }
            judged.after_command(device.as_deref());
        }
        judged.outcome(failures)
    }

    /// Render state carries into later tests, whether this one runs or not:
    /// applies the test's render-state commands to what later tests start
    /// from, and returns the state this test starts from.
    fn carry_render_state(&mut self, test: &TestSection) -> tgsi_pipeline::RenderState {
        let render_state = self.render_state.clone();
        for (_, cmd) in &test.commands {
            if let Command::State(st) = cmd {
                st.change.apply(&mut self.render_state);
            }
        }
        render_state
    }

    /// What a test that runs starts from: the resources, the cleared render
    /// targets and depth target, and the render state.
    fn start_test(
        &self,
        test: &TestSection,
        render_state: tgsi_pipeline::RenderState,
    ) -> Result<TestRun, String> {
        let res = self.resources()?;
        let frame =
            Frame::new(&self.render_targets).map_err(|e| format!("{}: {e}", self.at(test.line)))?;
        let depth = self.depth_target()?;
        Ok(TestRun {
            res,
            frame,
            depth,
            outputs: None,
            render_state,
        })
    }

    /// The commands that check (the probes and `expect error`): the result
    /// of the check, or None for a command that acts.
    fn check(&mut self, run: &TestRun, cmd: &Command, line: usize) -> Option<Result<(), String>> {
        Some(match cmd {
            Command::ProbeBuffer {
                index,
                offset,
                expected,
            } => self.probe_buffer(&run.res, *index, *offset, expected, line),
            Command::ProbeVertex {
                vertex,
                output,
                expected,
            } => self.probe_vertex(run.outputs.as_ref(), *vertex, *output, expected, line),
            Command::ExpectError(text) => self.expect_error(text, line),
            Command::ProbePixel {
                target,
                x,
                y,
                expected,
            } => self.probe_rect(&run.frame, *target, Some([*x, *y, 1, 1]), expected, line),
            Command::ProbeRect {
                target,
                rect,
                expected,
            } => self.probe_rect(&run.frame, *target, *rect, expected, line),
            Command::ProbeImage {
                index,
                coords,
                expected,
                values_text,
            } => self.probe_image(&run.res, *index, coords, expected, values_text, line),
            Command::ProbeDepthStencil {
                stencil,
                x,
                y,
                value,
                ulp,
            } => self.probe_depth(run.depth.as_ref(), *stencil, *x, *y, *value, *ulp, line),
            Command::Uniform { .. }
            | Command::Dispatch(_)
            | Command::RunVertices(_)
            | Command::DrawQuad { .. }
            | Command::ClearTarget { .. }
            | Command::State(_)
            | Command::Draw { .. }
            | Command::ClearDepth { .. } => return None,
        })
    }

    /// Runs a command that acts (writes constants, runs shaders, clears
    /// targets, sets render state); checks are left to [`Self::check`].
    fn act(&mut self, run: &mut TestRun, cmd: &Command, line: usize) -> Result<(), String> {
        let traced = self.trace_command(cmd, line);
        let result = self.act_on(run, cmd, line);
        if let Some(t) = self.config.trace.as_deref().filter(|_| traced) {
            t.tracer.arm(false);
        }
        result
    }

    /// Counts the dispatch and draw commands of `commands` that do not run
    /// (a skipped test, or the rest of a test after a command that could
    /// not run) for `tgsi debug --test N`, which numbers every one of the
    /// file; when the N-th is among them, says why it did not run.
    fn pass_over(&self, commands: &[(usize, Command)], why: &str) {
        let Some(t) = self.config.trace.as_deref() else {
            return;
        };
        for (line, _) in commands.iter().filter(|(_, c)| runs_shaders(c)) {
            let n = t.seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n == t.command {
                *t.not_run.lock().unwrap_or_else(|e| e.into_inner()) =
                    Some((*line, why.to_string()));
            }
        }
    }

    /// Arms the tracer when `cmd` is the dispatch or draw it follows.
    fn trace_command(&self, cmd: &Command, line: usize) -> bool {
        let Some(t) = self.config.trace.as_deref() else {
            return false;
        };
        if !runs_shaders(cmd) {
            return false;
        }
        let n = t.seen.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if t.history && n < t.command {
            t.tracer.set_draw(n as u32);
            t.tracer.arm(true);
            return true;
        }
        if n != t.command {
            return false;
        }
        t.tracer.set_draw(n as u32);
        let section = self.slots.get(&t.stage).map(|s| s.section.clone());
        *t.found.lock().unwrap_or_else(|e| e.into_inner()) = section.map(|s| (s, line));
        t.tracer.arm(true);
        true
    }

    fn act_on(&mut self, run: &mut TestRun, cmd: &Command, line: usize) -> Result<(), String> {
        match cmd {
            Command::Uniform { slot, words } => {
                for c in [&mut run.res.constants, &mut self.constants] {
                    if c.is_empty() {
                        c.push(Vec::new());
                    }
                    let start = *slot as usize * 4;
                    if c[0].len() < start + words.len() {
                        c[0].resize(start + words.len(), 0);
                    }
                    c[0][start..start + words.len()].copy_from_slice(words);
                }
                Ok(())
            }
            Command::Dispatch(groups) => self.dispatch(&mut run.res, *groups, line),
            Command::RunVertices(count) => self
                .run_vertices(&mut run.res, *count, line)
                .map(|o| run.outputs = Some(o)),
            Command::DrawQuad { size } => self.draw_quad(run, *size, line),
            Command::ClearTarget { target, color } => run
                .frame
                .clear(*target, *color)
                .map_err(|e| format!("{}: {e}", self.at(line))),
            Command::State(st) => {
                st.change.apply(&mut run.render_state);
                Ok(())
            }
            Command::Draw {
                indexed,
                topology,
                vertices,
                instances,
            } => self.draw(
                &mut run.res,
                &mut run.frame,
                run.depth.as_mut(),
                &run.render_state,
                (*indexed, topology, *vertices, *instances),
                line,
            ),
            Command::ClearDepth { depth: d, stencil } => match run.depth.as_mut() {
                Some(t) => {
                    t.clear(f32::from_bits(*d), stencil.map(|s| s as u8));
                    Ok(())
                }
                None => Err(format!(
                    "{}: clear depth, but there is no [depth target] above this test",
                    self.at(line)
                )),
            },
            Command::ProbeBuffer { .. }
            | Command::ProbeVertex { .. }
            | Command::ExpectError(_)
            | Command::ProbePixel { .. }
            | Command::ProbeRect { .. }
            | Command::ProbeImage { .. }
            | Command::ProbeDepthStencil { .. } => Ok(()),
        }
    }

    /// Runs `f` on the machine, turning errors and panics into a message.
    fn guarded<T>(
        &self,
        what: &str,
        line: usize,
        f: impl FnOnce() -> Result<T, ExecError>,
    ) -> Result<T, String> {
        match catch_unwind(AssertUnwindSafe(f)) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => {
                let at = e
                    .instruction
                    .map(|i| format!(" (instruction {i})"))
                    .unwrap_or_default();
                Err(format!(
                    "{}: {what} failed{at}: {}",
                    self.at(line),
                    e.message
                ))
            }
            Err(p) => Err(format!(
                "{}: {what} panicked: {}",
                self.at(line),
                panic_text(p)
            )),
        }
    }

    fn dispatch(
        &mut self,
        res: &mut Resources,
        groups: [u32; 3],
        line: usize,
    ) -> Result<(), String> {
        let shader = self.program(Stage::Compute, line)?;
        if let Some(device) = &self.config.vulkan {
            return super::vulkan::dispatch(device, &shader, res, groups).map_err(|e| {
                let message = format!("{}: dispatch on Vulkan failed: {}", self.at(line), e.text());
                if let super::vulkan::Refused::NotRunnable(why) = e {
                    self.not_runnable = Some(why);
                }
                message
            });
        }
        let limits = &self.config.limits;
        self.guarded("dispatch", line, || {
            shader.run_bound(res, |r| shader.program.dispatch(r, groups, limits))
        })
    }

    fn run_vertices(
        &mut self,
        res: &mut Resources,
        count: u32,
        line: usize,
    ) -> Result<VertexRun, String> {
        let shader = self.program(Stage::Vertex, line)?;
        let inputs = self.vertex_inputs(&shader, count as usize, line)?;
        if let Some(device) = &self.config.vulkan {
            let ran = super::vulkan::run_vertices(device, &shader, &inputs, count, res);
            return match ran {
                Ok(out) => Ok((out, shader)),
                Err(e) => {
                    let message = format!(
                        "{}: run vertices on Vulkan failed: {}",
                        self.at(line),
                        e.text()
                    );
                    if let super::vulkan::Refused::NotRunnable(why) = e {
                        self.not_runnable = Some(why);
                    }
                    Err(message)
                }
            };
        }
        let limits = &self.config.limits;
        let out = self.guarded("run vertices", line, || {
            shader.run_bound(res, |r| {
                shader
                    .program
                    .run_vertices(r, &inputs, count as usize, limits)
            })
        })?;
        Ok((out, shader))
    }

    /// `draw quad [W H]`: the fragment shader over every pixel of the targets.
    /// `probe [rt N] (X, Y)`, `rect`, `all`: every pixel of the rectangle
    /// (None = the whole target) against one value; the first pixel that
    /// differs is reported.
    fn probe_rect(
        &self,
        frame: &Frame,
        target: u32,
        rect: Option<[u32; 4]>,
        expected: &Expected,
        line: usize,
    ) -> Result<(), String> {
        let t = frame
            .target(target)
            .map_err(|e| format!("{}: probe failed: {e}", self.at(line)))?;
        let [x0, y0, w, h] = rect.unwrap_or([0, 0, t.width, t.height]);
        let x1 = u64::from(x0) + u64::from(w);
        let y1 = u64::from(y0) + u64::from(h);
        if x1 > u64::from(t.width) || y1 > u64::from(t.height) || w == 0 || h == 0 {
            return Err(format!(
                "{}: probe failed: pixels ({x0}, {y0}) to ({}, {}) are not inside the {}x{} render target",
                self.at(line),
                x1.saturating_sub(1),
                y1.saturating_sub(1),
                t.width,
                t.height
            ));
        }
        for y in y0..y1 as u32 {
            for x in x0..x1 as u32 {
                let got = pixel_values(expected, t.format, resolved_texel(t, x, y));
                if !pixel_matches(expected, t.format, &got) {
                    return Err(format!(
                        "{}: probe failed: expected {} got {}",
                        self.at(line),
                        format_list(expected.value_type, &expected.values),
                        format_list(expected.value_type, &got)
                    ));
                }
            }
        }
        Ok(())
    }

    /// The resources a test starts from: the sections above it, and the
    /// constants as `uniform` left them.
    fn resources(&self) -> Result<Resources, String> {
        let built = |list: &[Option<Result<Texture, (usize, String)>>], what: &str| {
            list.iter()
                .enumerate()
                .map(|(i, t)| match t {
                    None => Ok(None),
                    Some(Ok(t)) => Ok(Some(t.clone())),
                    Some(Err((line, e))) => Err(format!("{}: [{what} {i}]: {e}", self.at(*line))),
                })
                .collect::<Result<Vec<_>, String>>()
        };
        Ok(Resources {
            constants: self.constants.clone(),
            buffers: self.buffers.clone(),
            textures: built(&self.textures, "texture")?,
            images: built(&self.images, "image")?,
            samplers: self.samplers.clone(),
            ..Resources::default()
        })
    }

    /// `probe image N (X[, Y[, Z]]) rgba (...)`: one texel of level 0 (Z is
    /// the depth slice or array layer, Y the layer of a 1D array); integer
    /// formats compare integers.
    fn probe_image(
        &self,
        res: &Resources,
        index: u32,
        coords: &[u32],
        expected: &Expected,
        values_text: &str,
        line: usize,
    ) -> Result<(), String> {
        let at = self.at(line);
        let Some(Some(img)) = res.images.get(index as usize) else {
            return Err(format!(
                "{at}: probe failed: there is no [image {index}] above this test"
            ));
        };
        let c = |k: usize| coords.get(k).copied().unwrap_or(0);
        // As in an image address: a 1D array's second coordinate is the layer.
        let (x, y, z) = if img.target == TextureTarget::Array1D {
            (c(0), 0, c(1))
        } else {
            (c(0), c(1), c(2))
        };
        if img.texel_offset(0, x, y, z, 0).is_none() {
            let (w, h, d) = img.level_dims(0);
            return Err(format!(
                "{at}: probe failed: texel ({x}, {y}, {z}) is outside IMAGE[{index}] ({w}x{h}x{d})"
            ));
        }
        let texel = img.texel(0, x, y, z, 0);
        let got = &texel[..expected.values.len().min(4)];
        if !img.format.is_integer() || expected.value_type != ValueType::Float {
            // a UNORM/SNORM/sRGB texel within 1/255, as a target's pixel
            let words: Vec<u64> = got.iter().map(|&w| u64::from(w)).collect();
            if pixel_matches(expected, img.format, &words) {
                return Ok(());
            }
            return self.compare(expected, got, line);
        }
        let ty = if img.format.num_class() == NumClass::Uint {
            ValueType::Uint
        } else {
            ValueType::Int
        };
        let values = super::values::split_values(values_text)
            .map(|w| parse_value(ty, w))
            .collect::<Result<Vec<u64>, String>>()
            .map_err(|e| {
                format!(
                    "{at}: IMAGE[{index}] has the integer format {}: {e}",
                    img.format.short_name()
                )
            })?;
        let ints = Expected {
            value_type: ty,
            values,
            ulp: None,
        };
        self.compare(&ints, got, line)
    }

    fn program(&mut self, stage: Stage, line: usize) -> Result<Rc<Runnable>, String> {
        let at = self.at(line);
        let Some(slot) = self.slots.get_mut(&stage) else {
            return Err(format!(
                "{at}: there is no [{} shader] above this command",
                stage.name()
            ));
        };
        match &slot.built {
            Built::Ready(p) => Ok(p.clone()),
            Built::Rejected(text) => {
                slot.reported = true;
                Err(format!(
                    "{at}: the {} shader (line {}) does not assemble:\n{}",
                    stage.name(),
                    slot.section.line,
                    text
                ))
            }
            Built::Unsupported(why) => Err(format!("{at}: {why}")),
            Built::Assembled => Err(format!(
                "{at}: the {} shader is a `fail` section",
                stage.name()
            )),
        }
    }

    /// An error when `[vertex data]` has attributes but fewer than `count`
    /// rows (`command` says what asked for them).
    fn has_rows(&self, count: usize, command: &str, line: usize) -> Result<(), String> {
        match &self.vertex_data {
            Some(data) if !data.attributes.is_empty() && data.rows.len() < count => Err(format!(
                "{}: {command} but [vertex data] has only {} row(s)",
                self.at(line),
                data.rows.len()
            )),
            _ => Ok(()),
        }
    }

    /// The inputs of `run vertices`: `[vertex data]` rows (TGSI shaders:
    /// `IN[n]` attributes; Direct3D shaders: input-signature names too).
    fn vertex_inputs(
        &self,
        shader: &Runnable,
        count: usize,
        line: usize,
    ) -> Result<Vec<Vec<[u32; 4]>>, String> {
        let at = self.at(line);
        let empty = VertexData {
            attributes: Vec::new(),
            rows: Vec::new(),
        };
        let data = self.vertex_data.as_ref().unwrap_or(&empty);
        if data.attributes.is_empty() {
            let rows = vec![Vec::new(); count];
            return match &shader.d3d {
                Some(d) => d
                    .vertex_inputs(&[], &rows)
                    .map_err(|e| format!("{at}: {e}")),
                None => Ok(rows),
            };
        }
        self.has_rows(count, &format!("run vertices {count}"), line)?;
        let rows = &data.rows[..count];
        let attributes: Vec<Attribute> = data.attributes.iter().map(|(a, _)| a.clone()).collect();
        if let Some(d) = &shader.d3d {
            return d
                .vertex_inputs(&attributes, rows)
                .map_err(|e| format!("{at}: {e}"));
        }
        let mut registers = Vec::with_capacity(attributes.len());
        for a in &attributes {
            match a {
                Attribute::Input(n) => registers.push(*n as usize),
                Attribute::Semantic(..) => {
                    return Err(format!(
                        "{at}: the attribute {a} names a Direct3D input; a TGSI vertex shader reads IN[n]"
                    ));
                }
            }
        }
        let slots = registers.iter().map(|i| i + 1).max().unwrap_or(0);
        Ok(rows
            .iter()
            .map(|row| {
                let mut v = vec![[0u32; 4]; slots];
                for (index, value) in registers.iter().zip(row) {
                    v[*index] = *value;
                }
                v
            })
            .collect())
    }

    fn compare(&self, expected: &Expected, got_words: &[u32], line: usize) -> Result<(), String> {
        let got = words_to_values(expected.value_type, got_words);
        let ok =
            got.len() == expected.values.len()
                && expected.values.iter().zip(&got).all(|(e, g)| {
                    values_match(expected.value_type, *e, *g, expected.ulp.unwrap_or(0))
                });
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{}: probe failed: expected {} got {}",
                self.at(line),
                format_list(expected.value_type, &expected.values),
                format_list(expected.value_type, &got)
            ))
        }
    }

    fn probe_buffer(
        &self,
        res: &Resources,
        index: u32,
        offset: u64,
        expected: &Expected,
        line: usize,
    ) -> Result<(), String> {
        let bytes = res
            .buffers
            .get(index as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let len = (expected.values.len() * expected.value_type.words_per_value() * 4) as u64;
        if offset + len > bytes.len() as u64 {
            return Err(format!(
                "{}: probe failed: bytes {}..{} are outside BUFFER[{index}], which holds {} bytes",
                self.at(line),
                offset,
                offset + len,
                bytes.len()
            ));
        }
        let window = &bytes[offset as usize..(offset + len) as usize];
        let words: Vec<u32> = window
            .chunks(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        self.compare(expected, &words, line)
    }

    /// `probe vertex V OUT[K]`: TGSI output K, or `oK` of a Direct3D shader.
    fn probe_vertex(
        &self,
        outputs: Option<&VertexRun>,
        vertex: u32,
        output: u32,
        expected: &Expected,
        line: usize,
    ) -> Result<(), String> {
        let Some((outputs, shader)) = outputs else {
            return Err(format!(
                "{}: probe failed: no `run vertices` before this probe in the test",
                self.at(line)
            ));
        };
        let Some(v) = outputs.get(vertex as usize) else {
            return Err(format!(
                "{}: probe failed: vertex {vertex} was not run ({} vertices)",
                self.at(line),
                outputs.len()
            ));
        };
        let value = match &shader.d3d {
            Some(d) => d.output_register(v, output),
            None => v.get(output as usize).copied(),
        };
        let Some(o) = value else {
            let name = if shader.d3d.is_some() {
                format!("o{output}")
            } else {
                format!("OUT[{output}]")
            };
            return Err(format!(
                "{}: probe failed: the vertex shader has no {name}",
                self.at(line)
            ));
        };
        self.compare(expected, &o, line)
    }

    fn mark_last_checked(&mut self) {
        match self.last {
            Some(LastShader::Fail) => {
                if let Some((_, consumed)) = &mut self.pending_fail {
                    *consumed = true;
                }
            }
            Some(LastShader::Stage(stage)) => {
                if let Some(slot) = self.slots.get_mut(&stage) {
                    slot.reported = true;
                }
            }
            None => {}
        }
    }

    fn expect_error(&mut self, text: &str, line: usize) -> Result<(), String> {
        let at = self.at(line);
        let slot = match self.last {
            Some(LastShader::Fail) => self.pending_fail.as_mut().map(|(s, consumed)| {
                *consumed = true;
                s
            }),
            Some(LastShader::Stage(stage)) => self.slots.get_mut(&stage),
            None => None,
        };
        let Some(slot) = slot else {
            return Err(format!(
                "{at}: `expect error` but there is no shader section above it"
            ));
        };
        match &slot.built {
            Built::Rejected(message) => {
                slot.reported = true;
                if message.to_lowercase().contains(&text.to_lowercase()) {
                    Ok(())
                } else {
                    Err(format!(
                        "{at}: expected an error containing \"{text}\", got:\n{message}"
                    ))
                }
            }
            Built::Ready(..) | Built::Assembled => Err(format!(
                "{at}: expected the {} shader (line {}) to be rejected with \"{text}\", but it assembled",
                slot.section.stage.name(),
                slot.section.line
            )),
            Built::Unsupported(_) => Err(format!(
                "{at}: expected the {} shader (line {}) to be rejected with \"{text}\", but it is valid",
                slot.section.stage.name(),
                slot.section.line
            )),
        }
    }
}
