//! The compiled engine: a pre-decoded program ([`tgsi_exec::decode::Code`])
//! turned into AVX-512 machine code when the program is compiled, running
//! the same 16-lane batches as the interpreter on the same register file.
//!
//! * `emit.rs`: the template compiler (iced-x86's `code_asm`): one template
//!   per opcode shape, 32-bit values one zmm per channel, 64-bit values two
//!   zmm of native 64-bit lanes, the execution mask in `k1` with masked
//!   stores, flow control as mask arithmetic and branches mirroring the
//!   interpreter's structured model, the instruction budget counted per
//!   straight segment with the interpreter's exact error point.
//! * `native.rs`: every `unsafe` block of the engine: the W^X code buffer,
//!   calling the generated code, and the `extern "C"` entry points the code
//!   calls back into (one instruction run by the interpreter's own handler,
//!   the transcendental row kernels).
//!
//! Direct3D's denormal flushing (float sources read and float results written
//! as zeros of their sign) is compiled into the templates. What the compiler
//! does not inline (texture sampling, images, atomics, buffer accesses that
//! are not word-aligned, rare opcodes, indirect operands) runs through
//! the interpreter's handler for that one instruction, so the per-opcode
//! semantics stay in `exec::ops`/`exec::math`: the inlined templates are
//! checked against them by the differential tests (`tests.rs`) and the
//! fuzzer (`tgsi fuzz`). A BARRIER stops the compiled function; the batch
//! keeps its masks and frames and the next call resumes after it. Programs
//! with CAL, or nesting deeper than the machine allows, are not compiled:
//! the interpreter runs them and [`tgsi_exec::Program::fallback_reason`]
//! says why.

#[cfg(all(feature = "jit", target_arch = "x86_64"))]
#[allow(clippy::needless_range_loop)] // channel and pair loops index several arrays in lockstep
mod emit;
#[cfg(all(feature = "jit", target_arch = "x86_64"))]
mod native;

#[cfg(test)]
mod template_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tex_tests;

use std::sync::atomic::{AtomicU8, Ordering};
use tgsi_exec::decode::Code;
use tgsi_exec::machine::{Batch, Env, Stop};
use tgsi_exec::{CompiledCode, CompiledFigures, ExecError, Numerics, Program};
use tgsi_ir::ir::Shader;

/// Which engine runs a program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    /// The compiled engine where it can run (x86-64 with AVX-512 F/CD/BW/DQ/VL
    /// and a program it compiles), the interpreter elsewhere.
    #[default]
    Auto,
    /// The compiled engine; where it cannot run the program the interpreter
    /// does and [`tgsi_exec::Program::fallback_reason`] says why.
    Jit,
    /// The interpreter only.
    Interp,
}

/// 0: not chosen yet (read `TGSI_ENGINE`), else `Engine as u8 + 1`.
static DEFAULT_ENGINE: AtomicU8 = AtomicU8::new(0);

impl Engine {
    /// Every engine with its name, the one table names are read from.
    pub const ALL: [(Engine, &'static str); 3] = [
        (Engine::Auto, "auto"),
        (Engine::Jit, "jit"),
        (Engine::Interp, "interp"),
    ];

    /// `auto`, `jit` or `interp`.
    pub fn name(self) -> &'static str {
        Engine::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map_or("auto", |(_, n)| n)
    }

    /// The engine named `name` (`auto`, `jit`, `interp`).
    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL
            .iter()
            .find(|(_, n)| n.eq_ignore_ascii_case(name.trim()))
            .map(|(e, _)| *e)
    }

    /// The engine [`compile`] uses: the one given to
    /// [`Engine::set_default`], else the environment variable `TGSI_ENGINE`
    /// (`auto`, `jit`, `interp`; anything else is `auto`), else `auto`.
    pub fn default_engine() -> Engine {
        match DEFAULT_ENGINE.load(Ordering::Relaxed) {
            0 => {
                let e = std::env::var("TGSI_ENGINE")
                    .ok()
                    .and_then(|v| Engine::parse(&v))
                    .unwrap_or_default();
                DEFAULT_ENGINE.store(e as u8 + 1, Ordering::Relaxed);
                e
            }
            n => Engine::ALL
                .get(n as usize - 1)
                .map_or(Engine::Auto, |(e, _)| *e),
        }
    }

    /// The engine that runs `program`: [`Engine::Jit`] or [`Engine::Interp`].
    pub fn of(program: &Program) -> Engine {
        if program.is_compiled() {
            Engine::Jit
        } else {
            Engine::Interp
        }
    }

    /// Sets the engine of every later [`compile`] in
    /// this process (the CLI's `--engine`).
    pub fn set_default(engine: Engine) {
        DEFAULT_ENGINE.store(engine as u8 + 1, Ordering::Relaxed);
    }
}

/// Pre-decodes a shader under `numerics` and compiles it with the engine
/// [`Engine::default_engine`] names (`TGSI_ENGINE`, else `auto`).
pub fn compile(shader: &Shader, numerics: Numerics) -> Result<Program, ExecError> {
    compile_engine(shader, numerics, Engine::default_engine())
}

/// Pre-decodes a shader and, unless `engine` is [`Engine::Interp`],
/// compiles it to machine code at once (AVX-512). When the compiled engine
/// cannot run the program (no AVX-512, an unsupported construct) the
/// interpreter runs it and [`Program::fallback_reason`] says why; results
/// are the same.
///
/// ```
/// use tgsi_exec::Numerics;
/// use tgsi_jit::Engine;
/// let (shader, _) = tgsi_text::parse("COMP\nDCL TEMP[0]\n  0: MOV TEMP[0], TEMP[0]\n  1: END\n").unwrap();
/// let interp = tgsi_jit::compile_engine(&shader, Numerics::Ieee, Engine::Interp).unwrap();
/// assert_eq!(Engine::of(&interp), Engine::Interp);
/// let auto = tgsi_jit::compile_engine(&shader, Numerics::Ieee, Engine::Auto).unwrap();
/// assert!(Engine::of(&auto) == Engine::Jit || auto.fallback_reason().is_some());
/// ```
pub fn compile_engine(
    shader: &Shader,
    numerics: Numerics,
    engine: Engine,
) -> Result<Program, ExecError> {
    let mut program = Program::compile_with(shader, numerics)?;
    if engine != Engine::Interp {
        match Compiled::compile(program.code()) {
            Ok(c) => program.attach_compiled(std::sync::Arc::new(c)),
            Err(why) => program.set_fallback_reason(why),
        }
    }
    Ok(program)
}

/// The instructions (by index) of a compiled program that run through the
/// interpreter's handler: none for a program the compiled engine does not
/// run (the interpreter runs all of it).
pub fn handler_calls(program: &Program) -> Vec<usize> {
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    if program.is_compiled() {
        return emit::handler_calls(program.code());
    }
    let _ = program;
    Vec::new()
}

/// The texture instructions (by index) a compiled program samples in its
/// own code when the view and the batch allow (`docs/jit.md`, "Sampling
/// inline"), by the interpreter's handler otherwise.
pub fn inline_samples(program: &Program) -> Vec<usize> {
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    if program.is_compiled() {
        return emit::inline_samples(program.code());
    }
    let _ = program;
    Vec::new()
}

/// True when this machine can run the compiled engine's code.
pub fn cpu_supported() -> bool {
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512cd")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(all(feature = "jit", target_arch = "x86_64")))]
    {
        false
    }
}

/// A program compiled to machine code.
pub struct Compiled {
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    code: native::ExecBuf,
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    consts: Vec<emit::ConstRef>,
    /// The deepest static nesting of control flow: the frames and SWITCH
    /// selectors a batch stopped at a BARRIER keeps.
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    depth: usize,
    /// Constant buffers `0..const_bufs` the code reads with indirect slots.
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    const_bufs: usize,
    /// The code reads or writes buffers or shared memory inline.
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    memory: bool,
    /// The texture instructions sampled inline, by slot of [`native::Ctx`]'s
    /// texture entries: their indices.
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    tex: Vec<usize>,
    /// Unique to this compilation (what a thread's context was filled for).
    #[cfg(all(feature = "jit", target_arch = "x86_64"))]
    id: u64,
    /// What was compiled (inlined and called instructions, cached loops,
    /// bytes of machine code).
    figures: CompiledFigures,
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.figures())
    }
}

/// Most instructions of a program the compiled engine compiles (a larger
/// one runs in the interpreter): 65,536, far above any real shader.
pub const MAX_COMPILED_INSTRUCTIONS: usize = 1 << 16;

impl Compiled {
    /// Compiles `code`, or says why the compiled engine cannot run it.
    pub fn compile(code: &Code) -> Result<Compiled, String> {
        if !cpu_supported() {
            return Err(if cfg!(all(feature = "jit", target_arch = "x86_64")) {
                "this CPU lacks AVX-512 F/CD/BW/DQ/VL".to_string()
            } else {
                "built without the compiled engine (feature `jit`, x86-64 only)".to_string()
            });
        }
        #[cfg(all(feature = "jit", target_arch = "x86_64"))]
        {
            if code.insts.len() > MAX_COMPILED_INSTRUCTIONS {
                return Err(format!(
                    "{} instructions: the compiled engine takes programs of at most {MAX_COMPILED_INSTRUCTIONS}",
                    code.insts.len()
                ));
            }
            let out = emit::emit(code)?;
            let buf = native::ExecBuf::new(&out.bytes)?;
            Ok(Compiled {
                figures: CompiledFigures {
                    inlined: out.inlined,
                    called: out.called,
                    cached_loops: out.cached_loops,
                    cached_runs: out.cached_runs,
                    code_bytes: out.bytes.len(),
                },
                code: buf,
                consts: out.consts,
                depth: out.depth,
                const_bufs: out.const_bufs,
                memory: out.memory,
                tex: out.tex,
                id: native::next_id(),
            })
        }
        #[cfg(not(all(feature = "jit", target_arch = "x86_64")))]
        {
            let _ = code;
            Err("built without the compiled engine".to_string())
        }
    }
}

impl CompiledCode for Compiled {
    fn figures(&self) -> CompiledFigures {
        self.figures
    }

    fn run(
        &self,
        b: &mut Batch,
        code: &Code,
        env: &Env,
        shared: &mut [u32],
    ) -> Result<Stop, ExecError> {
        #[cfg(all(feature = "jit", target_arch = "x86_64"))]
        {
            native::run(self, b, code, env, shared)
        }
        #[cfg(not(all(feature = "jit", target_arch = "x86_64")))]
        {
            let _ = (b, code, env, shared);
            Err(ExecError {
                instruction: None,
                message: "the compiled engine is not built in".into(),
            })
        }
    }
}
