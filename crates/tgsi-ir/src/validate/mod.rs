//! The validator: structural and semantic checks of a whole shader, every
//! problem reported at once with the span of the statement or operand.
//!
//! What it owns (the checks of Mesa's `tgsi_sanity.c` made real, plus more):
//!
//! * `registers` – the declaration table: undeclared or out-of-range
//!   registers, 2-D indices, indirect address registers, ARRAY ids,
//!   duplicate and overlapping declarations, immediates;
//! * `operands` – per opcode: operand counts (from the opcode table), the
//!   register files each operand may name, writemasks (64-bit channel pairs),
//!   texture targets, stage-only opcodes and labels that are not allowed;
//! * `flow` – block structure: IF/UIF/ELSE/ENDIF, BGNLOOP/ENDLOOP,
//!   SWITCH/CASE/DEFAULT/ENDSWITCH, BGNSUB/ENDSUB, BRK/CONT placement, END,
//!   CAL targets and IF/ELSE labels;
//! * `properties` – properties meaningful for the stage and their values.
//!
//! Choices (where Mesa does not decide, or decides by not checking):
//!
//! * declarations and immediates after the first instruction are errors (as
//!   in `tgsi_sanity`); properties may appear anywhere (Mesa accepts them);
//! * 64-bit immediates are accepted;
//! * KILL, KILL_IF, DEMOTE, READ_HELPER, FBFETCH and INTERP_* outside a
//!   fragment shader, EMIT/ENDPRIM outside a geometry shader and BARRIER
//!   outside compute and tessellation-control shaders are errors;
//!   derivatives outside a fragment shader are warnings (compute-shader
//!   derivatives exist as an extension);
//! * IF/UIF/ELSE labels must lie inside the program; a non-zero label that is
//!   not the matching ELSE/ENDIF is a warning (Mesa writes `:0` where the label
//!   means nothing); BGNLOOP/ENDLOOP labels are not looked at; CAL needs a
//!   label naming a BGNSUB;
//! * a MEMORY register used with an index nobody declared is a warning when
//!   some MEMORY register is declared (Mesa's GLSL compiler declares
//!   `MEMORY[1], SHARED` and then uses `MEMORY[0]`), an error otherwise;
//! * per-vertex inputs (GS, TCS, TES) and TCS outputs are declared by their
//!   attribute index only (`DCL IN[][0]`); a vertex index is checked against
//!   the implied vertex count when it is known.
//!
//! Warnings never make the assembler (`tgsi_text::assemble`) fail.

/// Most entries one register file (TEMP, IN, OUT, IMM, SV, ADDR) may have
/// on the machine (as in Mesa's `tgsi_exec`, whose temporaries are 4,096):
/// a larger declaration is valid TGSI, and warned about.
pub const MAX_FILE_ENTRIES: u32 = 4096;
/// Most blocks (IF, loops, SWITCH, subroutine bodies) the machine nests:
/// a deeper program is valid TGSI, and warned about.
pub const MAX_NESTING: usize = 64;
/// Most instructions a program may have to run on the machine (262,144,
/// far above any real shader): a longer program is valid TGSI, and warned
/// about.
pub const MAX_PROGRAM_INSTRUCTIONS: usize = 1 << 18;
/// Most invocations of a compute block the machine runs by default.
pub const MAX_BLOCK_INVOCATIONS: u64 = 1 << 16;

mod flow;
mod operands;
mod properties;
mod registers;

use crate::diag::{Diagnostic, Diagnostics, Severity};
use crate::ir::{Shader, SourceMap, Span, Statement};

/// Checks a shader; returns every problem found (errors and warnings).
///
/// With a [`SourceMap`] every diagnostic points at the statement or operand
/// it is about; without one the message names the instruction index (or the
/// statement number for declarations, immediates and properties).
pub fn validate(shader: &Shader, map: Option<&SourceMap>) -> Diagnostics {
    let mut report = Reporter::new(shader, map);
    let table = registers::RegisterTable::build(shader, &mut report);
    properties::check(shader, &mut report);
    operands::check(shader, &table, &mut report);
    flow::check(shader, &mut report);
    check_length(shader, &mut report);
    check_immediates(shader, &mut report);
    Diagnostics(report.diags)
}

/// Warns at the first instruction past [`MAX_PROGRAM_INSTRUCTIONS`].
fn check_length(shader: &Shader, report: &mut Reporter) {
    warn_past(
        shader,
        report,
        |s| matches!(s, Statement::Instruction(_)),
        MAX_PROGRAM_INSTRUCTIONS,
        |count| {
            format!(
                "the program has {count} instructions: the machine runs at most {MAX_PROGRAM_INSTRUCTIONS}, so it will not run this shader"
            )
        },
        "past the machine's program length",
    );
}

/// Warns at the first immediate past [`MAX_FILE_ENTRIES`] (IMM is a
/// register file of the machine like the others).
fn check_immediates(shader: &Shader, report: &mut Reporter) {
    warn_past(
        shader,
        report,
        |s| matches!(s, Statement::Immediate(_)),
        MAX_FILE_ENTRIES as usize,
        |count| {
            format!(
                "the shader has {count} immediates (IMM[0..{}]): the machine runs at most {MAX_FILE_ENTRIES} entries of a register file, so it will not run this shader",
                count - 1
            )
        },
        "too many immediates to run",
    );
}

/// A warning at the first statement of a kind past the machine's `limit`
/// of them, its message made from their count.
fn warn_past(
    shader: &Shader,
    report: &mut Reporter,
    kind: impl Fn(&Statement) -> bool,
    limit: usize,
    message: impl Fn(usize) -> String,
    label: &str,
) {
    let mut of_kind = (shader.statements.iter().enumerate()).filter(|(_, s)| kind(s));
    let Some((stmt, _)) = of_kind.nth(limit) else {
        return;
    };
    let count = limit + 1 + of_kind.count();
    report.warning(Site::stmt(stmt), message(count), label);
}

/// Where a diagnostic points: a statement and optionally one of its operands
/// (instructions: destinations first, then sources).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Site {
    pub stmt: usize,
    pub operand: Option<usize>,
}

impl Site {
    pub fn stmt(stmt: usize) -> Site {
        Site {
            stmt,
            operand: None,
        }
    }
    pub fn operand(stmt: usize, operand: usize) -> Site {
        Site {
            stmt,
            operand: Some(operand),
        }
    }
}

/// Collects diagnostics and attaches positions (spans, or words in the
/// message when there is no source map).
pub(crate) struct Reporter<'a> {
    shader: &'a Shader,
    map: Option<&'a SourceMap>,
    /// Per statement: its instruction index, if it is an instruction.
    instruction_index: Vec<Option<usize>>,
    pub diags: Vec<Diagnostic>,
}

impl<'a> Reporter<'a> {
    fn new(shader: &'a Shader, map: Option<&'a SourceMap>) -> Reporter<'a> {
        let mut next = 0;
        let instruction_index = shader
            .statements
            .iter()
            .map(|s| match s {
                Statement::Instruction(_) => {
                    next += 1;
                    Some(next - 1)
                }
                _ => None,
            })
            .collect();
        Reporter {
            shader,
            map,
            instruction_index,
            diags: Vec::new(),
        }
    }

    /// The span of a site, falling back from operand to statement.
    fn span(&self, site: Site) -> Option<Span> {
        let map = self.map?;
        if let Some(op) = site.operand
            && let Some(span) = map.operands.get(site.stmt).and_then(|ops| ops.get(op))
        {
            return Some(*span);
        }
        map.statements.get(site.stmt).copied()
    }

    /// Words naming a site, for messages without a source map.
    fn describe(&self, site: Site) -> String {
        let stmt = self.shader.statements.get(site.stmt);
        match (
            stmt,
            self.instruction_index.get(site.stmt).copied().flatten(),
        ) {
            (Some(Statement::Instruction(inst)), Some(n)) => {
                let operand = site.operand.map_or(String::new(), |op| {
                    if op < inst.dst.len() {
                        format!(", dst {op}")
                    } else {
                        format!(", src {}", op - inst.dst.len())
                    }
                });
                format!("instruction {n} ({}{operand})", inst.opcode)
            }
            (Some(Statement::Declaration(_)), _) => {
                format!("declaration (statement {})", site.stmt)
            }
            (Some(Statement::Immediate(_)), _) => format!("immediate (statement {})", site.stmt),
            (Some(Statement::Property(_)), _) => format!("property (statement {})", site.stmt),
            _ => format!("statement {}", site.stmt),
        }
    }

    /// Reports a problem at `site` with a short label for the caret.
    pub fn report(
        &mut self,
        severity: Severity,
        site: Site,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        let message = message.into();
        let mut d = match severity {
            Severity::Error => Diagnostic::error(message),
            Severity::Warning => Diagnostic::warning(message),
        };
        match self.span(site) {
            Some(span) => d = d.with_primary(span, label),
            None => d.message = format!("{}: {}", self.describe(site), d.message),
        }
        self.diags.push(d);
        self.diags.last_mut().expect("just pushed")
    }

    pub fn error(
        &mut self,
        site: Site,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        self.report(Severity::Error, site, message, label)
    }

    pub fn warning(
        &mut self,
        site: Site,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> &mut Diagnostic {
        self.report(Severity::Warning, site, message, label)
    }

    /// Adds a secondary place to the last diagnostic (a note without a map).
    pub fn also(&mut self, site: Site, label: impl Into<String>) {
        let span = self.span(site);
        let place = self.describe(site);
        if let Some(d) = self.diags.last_mut() {
            d.add_place(span, label.into(), &place);
        }
    }

    /// The instruction index of a statement.
    pub fn instruction_index(&self, stmt: usize) -> Option<usize> {
        self.instruction_index.get(stmt).copied().flatten()
    }
}
