//! Sections and blocks: where declarations may stand, the hull-shader
//! phases, and the block structure of the code (`if`, `loop`, `switch`,
//! subroutines).
//!
//! Rules, with their sources:
//!
//! * declarations come before the first instruction of their section (the
//!   program, or each hull-shader phase: "Shader Model 5 Assembly", hull
//!   shader phases); `hs_decls` holds declarations only;
//! * a hull shader starts with `hs_decls`, then at most one
//!   `hs_control_point_phase`, then its `hs_fork_phase`s, then its
//!   `hs_join_phase`s;
//! * `if`/`else`/`endif`, `loop`/`endloop`, `switch`/`endswitch` nest, at
//!   most 64 deep per subroutine ("Flow control blocks can nest up to 64 deep
//!   per subroutine (and main)": `if (sm4 - asm)`, `switch (sm4 - asm)`);
//! * `case`/`default` stand directly inside a `switch`, each value once, one
//!   `default`; code that reaches the next label without `break` (or `ret`,
//!   `continue`) is an error: "case/default statements that fall through to
//!   the next case/default without a break cannot have any code in them"
//!   (`switch (sm4 - asm)`, `case (sm4 - asm)`);
//! * `break`/`breakc` inside a `loop` or `switch`, `continue`/`continuec`
//!   inside a `loop` (`break (sm4 - asm)`, `continue (sm4 - asm)`);
//! * `label` starts a subroutine and "can only appear directly after a ret
//!   instruction which is not nested in any flow control statements"; each
//!   label is defined once and every `call`/`callc` names a defined label
//!   (`label (sm4 - asm)`, `call (sm4 - asm)`).

use std::collections::HashMap;

use super::{Reporter, Site};
use crate::enums::{ProgramType, RegisterFile};
use crate::ir::{CustomData, Instruction, Payload, Program};
use crate::opcode::{OpFlags, Opcode};

/// Deepest block nesting per subroutine.
pub(crate) const MAX_NESTING: usize = 64;

/// What a section of the program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScopeKind {
    /// the whole program (every stage but the hull shader)
    Main,
    /// the hull shader's `hs_decls` section (global declarations)
    HsDecls,
    ControlPoint,
    Fork,
    Join,
}

impl ScopeKind {
    fn marker(self) -> &'static str {
        match self {
            ScopeKind::Main => "program",
            ScopeKind::HsDecls => "hs_decls",
            ScopeKind::ControlPoint => "hs_control_point_phase",
            ScopeKind::Fork => "hs_fork_phase",
            ScopeKind::Join => "hs_join_phase",
        }
    }
}

/// One section: the program, or a hull-shader phase.
#[derive(Clone, Debug)]
pub(crate) struct Scope {
    pub kind: ScopeKind,
}

/// How an instruction takes part in the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    Declaration,
    Phase,
    Code,
    /// comments and other custom data: allowed anywhere
    Neutral,
}

pub(crate) fn classify(inst: &Instruction) -> Class {
    let flags = inst.opcode.info().flags;
    if flags.contains(OpFlags::PHASE) {
        Class::Phase
    } else if inst.opcode.is_declaration() {
        Class::Declaration
    } else if inst.opcode == Opcode::CustomData {
        match &inst.payload {
            Payload::CustomData(CustomData::ImmediateConstantBuffer(_)) => Class::Declaration,
            Payload::CustomData(CustomData::ShaderMessage(_)) => Class::Code,
            _ => Class::Neutral,
        }
    } else {
        Class::Code
    }
}

/// The sections of a program and its subroutine labels.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// per instruction: index into `scopes`
    pub scope_of: Vec<usize>,
    pub scopes: Vec<Scope>,
    /// `label l#` / `label fb#`: (file, number) → instruction
    pub labels: HashMap<(RegisterFile, u32), usize>,
}

impl Layout {
    /// The kind of the section holding instruction `i`.
    pub fn kind_of(&self, i: usize) -> ScopeKind {
        self.scope_of
            .get(i)
            .and_then(|&s| self.scopes.get(s))
            .map_or(ScopeKind::Main, |s| s.kind)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockKind {
    If,
    Loop,
    Switch,
}

impl BlockKind {
    fn closer(self) -> &'static str {
        match self {
            BlockKind::If => "endif",
            BlockKind::Loop => "endloop",
            BlockKind::Switch => "endswitch",
        }
    }
    fn opener(self) -> &'static str {
        match self {
            BlockKind::If => "if",
            BlockKind::Loop => "loop",
            BlockKind::Switch => "switch",
        }
    }
}

/// An open block.
struct Block {
    kind: BlockKind,
    start: usize,
    /// `if`: where its `else` is
    else_at: Option<usize>,
    /// `switch`: where its `default` is
    default_at: Option<usize>,
    /// `switch`: case values seen, with their instruction
    cases: HashMap<u32, usize>,
    /// `switch`: a `case`/`default` label was seen
    labelled: bool,
    /// `switch`: code since the last label
    code_since_label: bool,
    /// how control leaves the code seen so far in this block (for a
    /// `switch`, since its last label; for an `if`, in its current arm)
    tail: Tail,
    /// `if`: how its `then` arm ended, once its `else` is seen
    then_tail: Option<Tail>,
    /// `loop`: a `break`/`breakc` of this loop was seen
    breaks: bool,
}

/// Whether the end of a stretch of code is reachable, for the rule that
/// code may not fall through into a `case` or `default` label: it is a
/// question of reachability, not of the instruction before the label.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// the end is reached whenever the code runs (plain instructions, a
    /// loop that breaks, an `if` whose arms both fall through)
    Falls,
    /// the code may leave before its end (`retc`, `breakc`, `continuec`,
    /// `discard`, an `if` with one arm that leaves): what still reaches
    /// the end falls through with C semantics
    MayLeave,
    /// the end is never reached (`break`, `continue`, `ret`, an `if` whose
    /// arms both leave, a `loop` without a `break`)
    Leaves,
}

impl Tail {
    /// The tail after instruction `op`.
    fn after(op: Opcode) -> Tail {
        match op {
            Opcode::Break | Opcode::Continue | Opcode::Ret => Tail::Leaves,
            Opcode::Breakc | Opcode::Continuec | Opcode::Retc | Opcode::Discard => Tail::MayLeave,
            _ => Tail::Falls,
        }
    }
    /// The tail after an `if` whose two arms end as `a` and `b`.
    fn join(a: Tail, b: Tail) -> Tail {
        if a == b { a } else { Tail::MayLeave }
    }
    /// The tail after a closed block.
    fn of_closed(b: &Block) -> Tail {
        match b.kind {
            BlockKind::If => match b.then_tail {
                Some(then) => Tail::join(then, b.tail),
                None => Tail::join(b.tail, Tail::Falls),
            },
            BlockKind::Loop if !b.breaks => Tail::Leaves,
            BlockKind::Loop | BlockKind::Switch => Tail::Falls,
        }
    }
}

impl Block {
    fn new(kind: BlockKind, start: usize) -> Block {
        Block {
            kind,
            start,
            else_at: None,
            default_at: None,
            cases: HashMap::new(),
            labelled: false,
            code_since_label: false,
            tail: Tail::Falls,
            then_tail: None,
            breaks: false,
        }
    }
}

struct Walker<'r, 'a> {
    report: &'r mut Reporter<'a>,
    stack: Vec<Block>,
}

impl Walker<'_, '_> {
    /// Reports every open block as unclosed at `what` and empties the stack.
    fn close_all(&mut self, what: &str, at: Option<usize>) {
        while let Some(b) = self.stack.pop() {
            self.report.error(
                Site::Inst(b.start),
                format!(
                    "`{}` is not closed: expected `{}` before {what}",
                    b.kind.opener(),
                    b.kind.closer()
                ),
                format!("this `{}` has no `{}`", b.kind.opener(), b.kind.closer()),
            );
            if let Some(at) = at {
                self.report.also(Site::Inst(at), format!("{what} is here"));
            }
        }
    }

    /// Closes the innermost block of `kind` at instruction `i`.
    fn close(&mut self, kind: BlockKind, i: usize) -> Option<Block> {
        let Some(pos) = self.stack.iter().rposition(|b| b.kind == kind) else {
            self.report.error(
                Site::Inst(i),
                format!("`{}` without an open `{}`", kind.closer(), kind.opener()),
                format!("no `{}` to close", kind.opener()),
            );
            return None;
        };
        while self.stack.len() > pos + 1 {
            let inner = self.stack.pop().expect("stack longer than pos");
            self.report.error(
                Site::Inst(inner.start),
                format!(
                    "`{}` is not closed before the `{}` that ends the enclosing `{}`",
                    inner.kind.opener(),
                    kind.closer(),
                    kind.opener()
                ),
                format!(
                    "expected `{}` for this `{}`",
                    inner.kind.closer(),
                    inner.kind.opener()
                ),
            );
            self.report
                .also(Site::Inst(i), "the enclosing block ends here");
        }
        self.stack.pop()
    }

    fn inside(&self, kinds: &[BlockKind]) -> bool {
        self.stack.iter().any(|b| kinds.contains(&b.kind))
    }

    /// Records code ending as `tail` inside the innermost block (for the
    /// fall-through rule). Returns false if the code stands in a `switch`
    /// before its first label.
    fn note_code(&mut self, tail: Tail) -> bool {
        match self.stack.last_mut() {
            Some(b) => {
                b.tail = tail;
                if b.kind == BlockKind::Switch {
                    b.code_since_label = true;
                    b.labelled
                } else {
                    true
                }
            }
            None => true,
        }
    }

    /// Closes the innermost block of `kind` at `i`; the enclosing block's
    /// code then ends as the closed block does.
    fn close_block(&mut self, kind: BlockKind, i: usize) {
        if let Some(closed) = self.close(kind, i) {
            self.note_code(Tail::of_closed(&closed));
        }
    }

    fn code(&mut self, program: &Program, i: usize) {
        let inst = &program.instructions[i];
        if matches!(inst.opcode, Opcode::Break | Opcode::Breakc)
            && let Some(b) = self
                .stack
                .iter_mut()
                .rev()
                .find(|b| matches!(b.kind, BlockKind::Loop | BlockKind::Switch))
            && b.kind == BlockKind::Loop
        {
            b.breaks = true;
        }
        let opens_or_closes = matches!(
            inst.opcode,
            Opcode::Case
                | Opcode::Default
                | Opcode::EndSwitch
                | Opcode::EndIf
                | Opcode::EndLoop
                | Opcode::Else
        );
        if !opens_or_closes && !self.note_code(Tail::after(inst.opcode)) {
            let start = self.stack.last().map_or(i, |b| b.start);
            self.report.error(
                Site::Inst(i),
                format!(
                    "`{}` stands in a `switch` before its first `case` or `default`",
                    inst.opcode.name()
                ),
                "expected `case` or `default` first",
            );
            self.report
                .also(Site::Inst(start), "the switch starts here");
        }
        match inst.opcode {
            Opcode::If | Opcode::Loop | Opcode::Switch => {
                let kind = match inst.opcode {
                    Opcode::If => BlockKind::If,
                    Opcode::Loop => BlockKind::Loop,
                    _ => BlockKind::Switch,
                };
                self.stack.push(Block::new(kind, i));
                if self.stack.len() == MAX_NESTING + 1 {
                    self.report.error(
                        Site::Inst(i),
                        format!(
                            "blocks nest {} deep; at most {MAX_NESTING} are allowed per subroutine",
                            self.stack.len()
                        ),
                        format!("block number {} of the nest", self.stack.len()),
                    );
                }
            }
            Opcode::Else => match self.stack.last_mut() {
                Some(b) if b.kind == BlockKind::If => {
                    if let Some(first) = b.else_at {
                        self.report.error(
                            Site::Inst(i),
                            "second `else` for one `if`",
                            "expected `endif`",
                        );
                        self.report
                            .also(Site::Inst(first), "the first `else` is here");
                    } else {
                        b.else_at = Some(i);
                        b.then_tail = Some(b.tail);
                        b.tail = Tail::Falls;
                    }
                }
                Some(b) => {
                    let (opener, closer, start) = (b.kind.opener(), b.kind.closer(), b.start);
                    self.report.error(
                        Site::Inst(i),
                        format!("`else` inside a `{opener}` that is still open"),
                        format!("expected `{closer}` first"),
                    );
                    self.report
                        .also(Site::Inst(start), format!("the `{opener}` starts here"));
                }
                None => self.report.error(
                    Site::Inst(i),
                    "`else` without an open `if`",
                    "no `if` to continue",
                ),
            },
            Opcode::EndIf => self.close_block(BlockKind::If, i),
            Opcode::EndLoop => self.close_block(BlockKind::Loop, i),
            Opcode::EndSwitch => self.close_block(BlockKind::Switch, i),
            Opcode::Case | Opcode::Default => self.label_in_switch(inst, i),
            Opcode::Break | Opcode::Breakc
                if !self.inside(&[BlockKind::Loop, BlockKind::Switch]) =>
            {
                self.report.error(
                    Site::Inst(i),
                    format!("`{}` outside a `loop` or `switch`", inst.opcode.name()),
                    "nothing to break out of",
                );
            }
            Opcode::Continue | Opcode::Continuec if !self.inside(&[BlockKind::Loop]) => {
                self.report.error(
                    Site::Inst(i),
                    format!("`{}` outside a `loop`", inst.opcode.name()),
                    "no loop to continue",
                );
            }
            _ => {}
        }
    }

    /// `case n` / `default`: directly inside a switch, no fall-through from code.
    fn label_in_switch(&mut self, inst: &Instruction, i: usize) {
        let name = inst.opcode.name();
        let Some(b) = self.stack.last_mut() else {
            self.report.error(
                Site::Inst(i),
                format!("`{name}` outside a `switch`"),
                "no open `switch`",
            );
            return;
        };
        if b.kind != BlockKind::Switch {
            let (opener, closer, start) = (b.kind.opener(), b.kind.closer(), b.start);
            self.report.error(
                Site::Inst(i),
                format!("`{name}` must stand directly inside a `switch`, but a `{opener}` is open"),
                format!("expected `{closer}` first"),
            );
            self.report
                .also(Site::Inst(start), format!("the `{opener}` starts here"));
            return;
        }
        let falls_through = b.labelled && b.code_since_label && b.tail == Tail::Falls;
        b.labelled = true;
        b.code_since_label = false;
        b.tail = Tail::Falls;
        let mut duplicate = None;
        if inst.opcode == Opcode::Default {
            match b.default_at {
                Some(first) => duplicate = Some(("a second `default`".to_string(), first)),
                None => b.default_at = Some(i),
            }
        } else if let Some(v) = case_value(inst) {
            match b.cases.get(&v) {
                Some(&first) => duplicate = Some((format!("a second `case {}`", v as i32), first)),
                None => {
                    b.cases.insert(v, i);
                }
            }
        }
        if falls_through {
            self.report.error(
                Site::Inst(i),
                format!(
                    "code falls through into `{name}`: only empty consecutive labels may share code"
                ),
                "the code before this label always reaches it",
            );
            self.report.note("Direct3D lets only empty labels share code: the code of a case must leave it (`break`, `ret`, `continue`, a loop that never exits, an `if` whose arms leave) or may leave it (`retc`, `breakc`, `discard`), and what still reaches the next label falls through as in C");
        }
        if let Some((what, first)) = duplicate {
            self.report.error(
                Site::Inst(i),
                format!("{what} in one `switch`"),
                "duplicate label",
            );
            self.report.also(Site::Inst(first), "first defined here");
        }
    }
}

/// The value of `case l(n)`.
fn case_value(inst: &Instruction) -> Option<u32> {
    let op = inst.operands.first()?;
    (op.file == RegisterFile::Immediate32).then(|| op.values.first().copied())?
}

/// Walks the program once: sections, declaration placement, phases, blocks
/// and labels.
pub(crate) fn check(program: &Program, report: &mut Reporter) -> Layout {
    let hull = program.version.program_type == ProgramType::Hull;
    let mut layout = Layout {
        scope_of: Vec::with_capacity(program.instructions.len()),
        scopes: vec![Scope {
            kind: if hull {
                ScopeKind::HsDecls
            } else {
                ScopeKind::Main
            },
        }],
        labels: HashMap::new(),
    };
    if hull && program.instructions.first().map(|i| i.opcode) != Some(Opcode::HsDecls) {
        let site = if program.instructions.is_empty() {
            Site::Program
        } else {
            Site::Inst(0)
        };
        report.error(
            site,
            "a hull shader starts with `hs_decls`",
            "expected `hs_decls` first",
        );
    }
    let mut walker = Walker {
        report,
        stack: Vec::new(),
    };
    // first code instruction of the current section, and of the current subroutine
    let mut first_code: Option<usize> = None;
    let mut last_code: Option<usize> = None;
    let mut seen_hs_decls: Option<usize> = None;
    let mut seen_control_point: Option<usize> = None;
    let mut seen_join: Option<usize> = None;
    let mut seen_fork: Option<usize> = None;
    for (i, inst) in program.instructions.iter().enumerate() {
        let class = classify(inst);
        if class == Class::Phase && hull {
            walker.close_all(&format!("`{}`", inst.opcode.name()), Some(i));
            let kind = match inst.opcode {
                Opcode::HsDecls => ScopeKind::HsDecls,
                Opcode::HsControlPointPhase => ScopeKind::ControlPoint,
                Opcode::HsForkPhase => ScopeKind::Fork,
                _ => ScopeKind::Join,
            };
            phase_order(
                walker.report,
                i,
                kind,
                [
                    &mut seen_hs_decls,
                    &mut seen_control_point,
                    &mut seen_fork,
                    &mut seen_join,
                ],
            );
            if kind != ScopeKind::HsDecls || i != 0 {
                layout.scopes.push(Scope { kind });
            }
            first_code = None;
            last_code = None;
        }
        let scope = layout.scopes.len() - 1;
        layout.scope_of.push(scope);
        match class {
            Class::Declaration => {
                if let Some(first) = first_code {
                    let section = layout.scopes[scope].kind.marker();
                    walker.report.error(
                        Site::Inst(i),
                        format!(
                            "declaration `{}` after the first instruction of the {section}",
                            inst.opcode.name()
                        ),
                        "declarations must come first",
                    );
                    walker
                        .report
                        .also(Site::Inst(first), "the first instruction is here");
                }
            }
            Class::Code => {
                if layout.scopes[scope].kind == ScopeKind::HsDecls {
                    walker.report.error(
                        Site::Inst(i),
                        format!("`{}` in the `hs_decls` section, which holds declarations only", inst.opcode.name()),
                        "expected a phase (`hs_control_point_phase`, `hs_fork_phase`, `hs_join_phase`) first",
                    );
                }
                first_code.get_or_insert(i);
                if inst.opcode == Opcode::Label {
                    subroutine_start(&mut walker, &mut layout, inst, i, last_code);
                } else {
                    walker.code(program, i);
                }
                last_code = Some(i);
            }
            Class::Phase | Class::Neutral => {}
        }
    }
    walker.close_all("the end of the program", None);
    check_calls(program, &layout, report);
    layout
}

/// Checks the order of hull-shader phases; `seen` holds where hs_decls, the
/// control-point phase, the first fork and the first join phase were.
fn phase_order(report: &mut Reporter, i: usize, kind: ScopeKind, seen: [&mut Option<usize>; 4]) {
    let [decls, control, fork, join] = seen;
    let name = kind.marker();
    let out_of_order = |report: &mut Reporter, what: &str, other: usize| {
        report.error(
            Site::Inst(i),
            format!("`{name}` {what}"),
            "phase out of order",
        );
        report.also(Site::Inst(other), "the earlier phase is here");
        report.note("a hull shader is `hs_decls`, one optional `hs_control_point_phase`, then fork phases, then join phases");
    };
    match kind {
        ScopeKind::HsDecls => {
            // a late first `hs_decls` is reported as the missing start of the program
            if let Some(first) = *decls {
                out_of_order(report, "appears twice", first);
            }
            decls.get_or_insert(i);
        }
        ScopeKind::ControlPoint => {
            if let Some(first) = *control {
                out_of_order(report, "appears twice", first);
            } else if let Some(f) = fork.or(*join) {
                out_of_order(report, "after a fork or join phase", f);
            }
            control.get_or_insert(i);
        }
        ScopeKind::Fork => {
            if let Some(j) = *join {
                out_of_order(report, "after a join phase", j);
            }
            fork.get_or_insert(i);
        }
        ScopeKind::Join => {
            join.get_or_insert(i);
        }
        ScopeKind::Main => {}
    }
}

/// `label l#` / `label fb#`: closes the previous subroutine (or the main
/// program) and records the label.
fn subroutine_start(
    walker: &mut Walker,
    layout: &mut Layout,
    inst: &Instruction,
    i: usize,
    last_code: Option<usize>,
) {
    walker.close_all("the `label` that starts a subroutine", Some(i));
    // label (sm4 - asm): "A label can only appear directly after a ret
    // instruction which is not nested in any flow control statements."
    match last_code {
        Some(last) if walker.report.program.instructions[last].opcode != Opcode::Ret => {
            let name = walker.report.program.instructions[last].opcode.name();
            walker.report.error(
                Site::Inst(last),
                format!("`{name}` is followed by a `label`: a label stands directly after a `ret`"),
                "expected `ret` after this",
            );
            walker
                .report
                .also(Site::Inst(i), "the subroutine starts here");
        }
        Some(_) => {}
        None => walker.report.error(
            Site::Inst(i),
            "a `label` with no main program before it: a label stands directly after a `ret`",
            "expected the main program and its `ret` first",
        ),
    }
    let Some(op) = inst.operands.first() else {
        return;
    };
    let Some(index) = op.indices.first() else {
        return;
    };
    let key = (op.file, index.immediate() as u32);
    if let Some(&first) = layout.labels.get(&key) {
        walker.report.error(
            Site::Operand(i, 0),
            format!("label `{}{}` is defined twice", op.file.name(), key.1),
            "second definition",
        );
        walker.report.also(Site::Inst(first), "first defined here");
    } else {
        layout.labels.insert(key, i);
    }
}

/// Every `call`/`callc` names a defined label.
fn check_calls(program: &Program, layout: &Layout, report: &mut Reporter) {
    for (i, inst) in program.instructions.iter().enumerate() {
        let slot = match inst.opcode {
            Opcode::Call => 0,
            Opcode::Callc => 1,
            _ => continue,
        };
        let Some(op) = inst.operands.get(slot) else {
            continue;
        };
        let Some(index) = op.indices.first() else {
            continue;
        };
        let n = index.immediate() as u32;
        if !layout.labels.contains_key(&(op.file, n)) {
            report.error(
                Site::Operand(i, slot),
                format!(
                    "`{}` calls `{}{n}`, which no `label` defines",
                    inst.opcode.name(),
                    op.file.name()
                ),
                "undefined label",
            );
        }
    }
}
