//! The shader debugger's library side: follow one invocation through its
//! program in the language it was written in.
//!
//! A [`Source`] is a shader as the user wrote it (TGSI text or tokens,
//! SM4/SM5 assembly or DXBC) with what a trace needs to speak its terms:
//! the listing (the file's lines, or `tgsi dis`'s for binary input), each
//! instruction's number, line and text, and for Direct3D the map from the
//! lowered TGSI back to the Direct3D instructions and registers.
//! [`Source::program`] compiles it for the interpreter with a
//! [`Tracer`] attached; whatever then runs the program (a dispatch, a
//! vertex run, a draw) records the chosen invocation, and
//! [`Source::trace`] turns the machine's record into a [`Trace`] in source
//! terms. [`trace`] does the three steps at once.
//!
//! ```
//! use tgsi::debug::{Selector, Source, trace};
//! use tgsi::exec::{Limits, Resources};
//!
//! let text = "COMP
//! PROPERTY CS_FIXED_BLOCK_WIDTH 8
//! PROPERTY CS_FIXED_BLOCK_HEIGHT 1
//! PROPERTY CS_FIXED_BLOCK_DEPTH 1
//! DCL SV[0], THREAD_ID
//! DCL TEMP[0]
//! IMM[0] UINT32 {3, 0, 0, 0}
//!   0: USLT TEMP[0].x, SV[0].xxxx, IMM[0].xxxx
//!   1: UIF TEMP[0].xxxx
//!   2:   MOV TEMP[0].y, IMM[0].xxxx
//!   3: ENDIF
//!   4: END
//! ";
//! let source = Source::from_bytes("small.tgsi", text.as_bytes())?;
//! let thread = Selector::Thread { group: [0; 3], thread: [5, 0, 0] };
//! let t = trace(&source, thread, |program| {
//!     program.dispatch(&mut Resources::default(), [1, 1, 1], &Limits::default())?;
//!     Ok(())
//! })?;
//! // thread 5 is not below 3: the IF is a step, its body is not
//! let pcs: Vec<u32> = t.steps.iter().map(|s| t.instructions[s.instruction].pc).collect();
//! assert_eq!(pcs, [0, 1, 3, 4]);
//! assert_eq!(t.instruction(&t.steps[0]).text, "USLT TEMP[0].x, SV[0].xxxx, IMM[0].xxxx");
//! assert_eq!(t.steps[0].writes[0].target.to_string(), "TEMP[0].x");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod json;
mod source;

pub use json::{write_json, write_json_step};
pub use source::{Language, ListedInstruction, Source};
pub use tgsi_exec::trace::{Identity, QuadLane, Selector, Status, Tracer};

use std::fmt;
use std::sync::Arc;
use tgsi_exec::{ExecError, Program};
use tgsi_ir::enums::Processor;

/// Why no trace came out.
#[derive(Debug, thiserror::Error)]
pub enum DebugError {
    /// The shader does not compile for the machine.
    #[error("{0}")]
    Compile(ExecError),
    /// The run failed before it reached the chosen invocation.
    #[error("{0}")]
    Run(ExecError),
    /// The selector names no invocation of this run.
    #[error("{0}")]
    NotFound(String),
}

/// What a step wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A register channel as the source language names it (`TEMP[3].y`,
    /// `r3.y`; shared by every write of that channel).
    Reg(Arc<str>),
    /// A word of memory: `BUFFER[0]`, `MEMORY`, `u0`, `g0`, at a byte offset.
    Memory { mem: String, offset: u32 },
    /// A texel of an image (`IMAGE[1]`, `u1`) at (x, y, z, layer).
    Image { mem: String, coord: [u32; 4] },
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::Reg(r) => f.write_str(r),
            Target::Memory { mem, offset } => write!(f, "{mem}+{offset}"),
            Target::Image { mem, coord } => {
                write!(
                    f,
                    "{mem}({}, {}, {}, {})",
                    coord[0], coord[1], coord[2], coord[3]
                )
            }
        }
    }
}

/// One value a step wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedWrite {
    pub target: Target,
    /// The word (an image write: the texel's first word).
    pub word: u32,
    /// An image write: every word of the texel.
    pub texel: Option<Box<[u32]>>,
    /// The 64-bit value of a pair, on its first channel.
    pub wide: Option<u64>,
    /// Written by a float (or double) operation: what "run to the first
    /// NaN or infinity" looks at.
    pub float: bool,
}

/// One step of the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceStep {
    /// Index into [`Trace::instructions`].
    pub instruction: usize,
    pub writes: Vec<NamedWrite>,
}

/// A register channel's value with its source name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedValue {
    pub name: String,
    pub word: u32,
}

/// One invocation followed through its program, in source terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub language: Language,
    pub stage: Processor,
    /// The file's name as given.
    pub file: String,
    pub selector: Selector,
    /// Who was found (for a pixel: the primitive that covered it).
    pub identity: Identity,
    /// The lines the user reads: the file, or `tgsi dis`'s listing of it.
    pub listing: Vec<String>,
    /// Every instruction of the program, in order.
    pub instructions: Vec<ListedInstruction>,
    pub steps: Vec<TraceStep>,
    pub status: Status,
    /// Inputs and system values as the run started.
    pub inputs: Vec<NamedValue>,
    /// Outputs as the run ended.
    pub outputs: Vec<NamedValue>,
    /// Fragments: the 2×2 quad.
    pub quad: Option<[QuadLane; 4]>,
}

impl Trace {
    /// The instruction of `step`.
    pub fn instruction(&self, step: &TraceStep) -> &ListedInstruction {
        &self.instructions[step.instruction]
    }

    /// Every register channel's value after `steps` steps (0: as the run
    /// started), by name, in the order they were first set: replayed from
    /// the record, without running anything.
    pub fn registers_at(&self, steps: usize) -> Vec<NamedValue> {
        let mut out: Vec<NamedValue> = self.inputs.clone();
        for step in self.steps.iter().take(steps) {
            for w in &step.writes {
                let Target::Reg(name) = &w.target else {
                    continue;
                };
                let word = w.word;
                match out.iter_mut().find(|v| *v.name == **name) {
                    Some(v) => v.word = word,
                    None => out.push(NamedValue {
                        name: name.to_string(),
                        word,
                    }),
                }
            }
        }
        out
    }

    /// The first step that wrote a NaN or an infinity (as a 32-bit float,
    /// or as a double on a 64-bit pair), at or after step `from`.
    pub fn first_nan_or_inf(&self, from: usize) -> Option<usize> {
        self.steps.iter().enumerate().skip(from).find_map(|(k, s)| {
            s.writes
                .iter()
                .any(|w| {
                    w.float
                        && matches!(w.target, Target::Reg(_))
                        && (!f32::from_bits(w.word).is_finite()
                            || w.wide.is_some_and(|v| !f64::from_bits(v).is_finite()))
                })
                .then_some(k)
        })
    }
}

/// Compiles `source` with a tracer following `selector`, lets `run` run it
/// (any job: a dispatch, vertices, a draw), and returns the trace of the
/// chosen invocation.
pub fn trace(
    source: &Source,
    selector: Selector,
    run: impl FnOnce(&Program) -> Result<(), ExecError>,
) -> Result<Trace, DebugError> {
    let tracer = Arc::new(Tracer::new(selector));
    let program = source.program(&tracer).map_err(DebugError::Compile)?;
    let ran = run(&program);
    match tracer.take() {
        Some(rec) => Ok(source.trace(rec, selector)),
        None => match ran {
            Err(e) => Err(DebugError::Run(e)),
            Ok(()) => Err(DebugError::NotFound(not_found(selector))),
        },
    }
}

/// What a selector that found nothing names, for its error.
pub fn not_found(selector: Selector) -> String {
    match selector {
        Selector::Thread { group, thread } => format!(
            "no thread ({}, {}, {}) in work group ({}, {}, {}) ran: it is outside the dispatch or the block",
            thread[0], thread[1], thread[2], group[0], group[1], group[2]
        ),
        Selector::Vertex { vertex, instance } => {
            format!(
                "vertex {vertex} of instance {instance} was not shaded: the run has no such vertex"
            )
        }
        Selector::Pixel {
            x,
            y,
            sample,
            primitive,
        } => match primitive {
            Some(p) => format!(
                "primitive {p} shaded no fragment at pixel ({x}, {y}) sample {sample}: it does not cover it, or its fragment failed an early depth or stencil test (--history lists what covered the pixel)"
            ),
            None => format!(
                "no fragment was shaded at pixel ({x}, {y}) sample {sample}: no primitive covers it (or the pixel or sample is outside the target), or every fragment there failed an early depth or stencil test (--history lists what covered the pixel)"
            ),
        },
        Selector::Primitive {
            primitive,
            invocation,
        } => format!(
            "primitive {primitive} has no invocation {invocation} in this run (no such primitive or invocation)"
        ),
        Selector::Domain {
            primitive,
            coord: [u, v],
            w: None,
        } => format!("patch {primitive} has no domain point ({u}, {v}) in this run"),
        Selector::Domain {
            primitive,
            coord: [u, v],
            w: Some(w),
        } => format!(
            "patch {primitive} has no domain point ({u}, {v}, {w}) in this run (w is 1 - u - v on triangles, 0 on quads and isolines)"
        ),
    }
}
