//! Block structure and control flow: IF/UIF/ELSE/ENDIF, BGNLOOP/ENDLOOP,
//! SWITCH/CASE/DEFAULT/ENDSWITCH and BGNSUB/ENDSUB nest properly; BRK, CONT,
//! CASE and DEFAULT stand where they mean something; exactly one END, at the
//! top level; CAL labels name a BGNSUB; IF/UIF/ELSE labels lie inside the
//! program (and, when not 0, name the matching ELSE/ENDIF).

use super::{Reporter, Site};
use crate::ir::{Shader, Statement};
use crate::opcode::Opcode;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    If,
    Loop,
    Switch,
    Sub,
}

impl Kind {
    fn opener(self) -> &'static str {
        match self {
            Kind::If => "IF",
            Kind::Loop => "BGNLOOP",
            Kind::Switch => "SWITCH",
            Kind::Sub => "BGNSUB",
        }
    }
    fn closer(self) -> &'static str {
        match self {
            Kind::If => "ENDIF",
            Kind::Loop => "ENDLOOP",
            Kind::Switch => "ENDSWITCH",
            Kind::Sub => "ENDSUB",
        }
    }
}

/// An open block.
struct Block {
    kind: Kind,
    /// The opener as written (IF or UIF, ...).
    opener: &'static str,
    /// Statement of the opener.
    stmt: usize,
    /// IF/UIF: index in `branches` of the opener's label record.
    branch: Option<usize>,
    /// IF: statement of its ELSE; SWITCH: statement of its DEFAULT.
    middle: Option<usize>,
}

/// An IF/UIF/ELSE and the instruction its label should name.
struct Branch {
    stmt: usize,
    label: Option<u32>,
    /// Instruction index of the matching ELSE/ENDIF, once found.
    target: Option<usize>,
}

struct Walker<'r, 'a> {
    report: &'r mut Reporter<'a>,
    stack: Vec<Block>,
    branches: Vec<Branch>,
    /// The statement of the first END.
    end: Option<usize>,
    warned_after_end: bool,
    /// CAL statements with their labels.
    calls: Vec<(usize, Option<u32>)>,
    /// Instruction index of every BGNSUB.
    subs: Vec<usize>,
}

impl Walker<'_, '_> {
    /// One instruction of the walk: opens, splits and closes blocks, and
    /// checks what may stand where.
    fn step(&mut self, stmt: usize, inst: &crate::ir::Instruction) {
        let index = self.report.instruction_index(stmt).unwrap_or(0);
        let here = Site::stmt(stmt);
        if let Some(end_stmt) = self.end
            && self.stack.is_empty()
            && inst.opcode != Opcode::BGNSUB
            && inst.opcode != Opcode::END
            && !self.warned_after_end
        {
            self.warned_after_end = true;
            self.report.warning(
                here,
                format!("{} after END is never executed", inst.opcode),
                "unreachable",
            );
            self.report.also(
                Site::stmt(end_stmt),
                "the program ends here (only subroutines may follow)",
            );
        }
        let opener = inst.opcode.name();
        match inst.opcode {
            Opcode::IF | Opcode::UIF => {
                self.branches.push(Branch {
                    stmt,
                    label: inst.label,
                    target: None,
                });
                self.open(Kind::If, opener, stmt, Some(self.branches.len() - 1));
            }
            Opcode::ELSE => self.else_(stmt, index, inst.label),
            Opcode::ENDIF => {
                self.close(Kind::If, stmt, index);
            }
            Opcode::BGNLOOP => self.open(Kind::Loop, opener, stmt, None),
            Opcode::ENDLOOP => {
                self.close(Kind::Loop, stmt, index);
            }
            Opcode::SWITCH => self.open(Kind::Switch, opener, stmt, None),
            Opcode::CASE | Opcode::DEFAULT => self.case(stmt, inst.opcode),
            Opcode::ENDSWITCH => {
                self.close(Kind::Switch, stmt, index);
            }
            Opcode::BGNSUB => self.bgnsub(stmt, index, opener),
            Opcode::ENDSUB => {
                self.close(Kind::Sub, stmt, index);
            }
            Opcode::BRK if !self.inside(&[Kind::Loop, Kind::Switch]) => {
                self.report.error(
                    here,
                    "BRK outside a loop or switch",
                    "nothing to break out of",
                );
            }
            Opcode::CONT if !self.inside(&[Kind::Loop]) => {
                self.report
                    .error(here, "CONT outside a loop", "nothing to continue");
            }
            Opcode::CAL => self.calls.push((stmt, inst.label)),
            Opcode::END => self.end(stmt),
            _ => {}
        }
    }

    fn open(&mut self, kind: Kind, opener: &'static str, stmt: usize, branch: Option<usize>) {
        self.stack.push(Block {
            kind,
            opener,
            stmt,
            branch,
            middle: None,
        });
        if self.stack.len() == super::MAX_NESTING + 1 {
            self.report.warning(
                Site::stmt(stmt),
                format!(
                    "blocks nested {} deep: the machine runs at most {}, so it will not run this shader",
                    self.stack.len(),
                    super::MAX_NESTING
                ),
                "nested too deep to run",
            );
        }
    }

    /// ELSE: the middle of the innermost IF, once.
    fn else_(&mut self, stmt: usize, index: usize, label: Option<u32>) {
        let here = Site::stmt(stmt);
        match self.stack.last_mut() {
            Some(top) if top.kind == Kind::If && top.middle.is_none() => {
                top.middle = Some(stmt);
                if let Some(b) = top.branch {
                    self.branches[b].target = Some(index);
                }
                self.branches.push(Branch {
                    stmt,
                    label,
                    target: None,
                });
                top.branch = Some(self.branches.len() - 1);
            }
            Some(top) if top.kind == Kind::If => {
                let first = top.middle.expect("checked");
                self.report
                    .error(here, "a second ELSE for the same IF", "second ELSE");
                self.report.also(Site::stmt(first), "first ELSE");
            }
            Some(top) => {
                let (name, opener) = (top.opener, top.stmt);
                self.report.error(
                    here,
                    format!("ELSE inside a {name} that is not an IF"),
                    "ELSE without IF",
                );
                self.report
                    .also(Site::stmt(opener), format!("innermost open block: {name}"));
            }
            None => {
                self.report.error(here, "ELSE without IF", "no open IF");
            }
        }
    }

    /// CASE and DEFAULT: directly inside a SWITCH, one DEFAULT each.
    fn case(&mut self, stmt: usize, opcode: Opcode) {
        let here = Site::stmt(stmt);
        let name = opcode.name();
        match self.stack.last_mut() {
            Some(top) if top.kind == Kind::Switch => {
                if opcode == Opcode::DEFAULT {
                    if let Some(first) = top.middle {
                        self.report.error(
                            here,
                            "a second DEFAULT in the same SWITCH",
                            "second DEFAULT",
                        );
                        self.report.also(Site::stmt(first), "first DEFAULT");
                    } else {
                        top.middle = Some(stmt);
                    }
                }
            }
            _ => {
                self.report.error(
                    here,
                    format!("{name} outside a SWITCH"),
                    format!("{name} must stand directly inside SWITCH .. ENDSWITCH"),
                );
            }
        }
    }

    /// BGNSUB: a subroutine at the top level.
    fn bgnsub(&mut self, stmt: usize, index: usize, opener: &'static str) {
        let here = Site::stmt(stmt);
        if let Some(top) = self.stack.last() {
            let (name, opener) = (top.opener, top.stmt);
            self.report.error(
                here,
                format!("BGNSUB inside an open {name}: subroutines stand at the top level"),
                "nested subroutine",
            );
            self.report.also(Site::stmt(opener), "still open");
        }
        self.subs.push(index);
        self.stack.push(Block {
            kind: Kind::Sub,
            opener,
            stmt,
            branch: None,
            middle: None,
        });
    }

    /// END: once, at the top level.
    fn end(&mut self, stmt: usize) {
        let here = Site::stmt(stmt);
        if let Some(first) = self.end {
            self.report.error(
                here,
                "a second END instruction",
                "the program already ended",
            );
            self.report.also(Site::stmt(first), "first END");
        } else {
            self.end = Some(stmt);
        }
        if let Some(top) = self.stack.last() {
            let (kind, name, opener) = (top.kind, top.opener, top.stmt);
            self.report.error(
                here,
                format!("END inside an open {name}"),
                "END must stand at the top level",
            );
            self.report.also(
                Site::stmt(opener),
                format!("opened here, missing {}", kind.closer()),
            );
        }
    }

    /// True when a block of one of `kinds` is open inside the current subroutine.
    fn inside(&self, kinds: &[Kind]) -> bool {
        for b in self.stack.iter().rev() {
            if kinds.contains(&b.kind) {
                return true;
            }
            if b.kind == Kind::Sub {
                return false;
            }
        }
        false
    }

    /// Closes the innermost block of `kind`, reporting what is wrong on the way.
    fn close(&mut self, kind: Kind, stmt: usize, inst: usize) -> Option<Block> {
        let Some(pos) = self.stack.iter().rposition(|b| b.kind == kind) else {
            self.report.error(
                Site::stmt(stmt),
                format!("{} without {}", kind.closer(), kind.opener()),
                format!("no open {}", kind.opener()),
            );
            return None;
        };
        while self.stack.len() > pos + 1 {
            let inner = self.stack.pop().expect("stack longer than pos");
            self.report.error(
                Site::stmt(inner.stmt),
                format!(
                    "{} is not closed before the {} that ends the enclosing {}",
                    inner.opener,
                    kind.closer(),
                    self.stack[pos].opener
                ),
                format!("missing {}", inner.kind.closer()),
            );
            self.report
                .also(Site::stmt(stmt), "enclosing block ends here");
        }
        let block = self.stack.pop().expect("found at pos");
        if let Some(b) = block.branch {
            // an IF without ELSE jumps to its ENDIF; ELSE always to ENDIF.
            if self.branches[b].target.is_none() {
                self.branches[b].target = Some(inst);
            }
        }
        Some(block)
    }
}

/// Checks block structure, END and labels.
pub(crate) fn check(shader: &Shader, report: &mut Reporter) {
    let count = shader.instructions().count();
    let mut w = Walker {
        report,
        stack: Vec::new(),
        branches: Vec::new(),
        end: None,
        warned_after_end: false,
        calls: Vec::new(),
        subs: Vec::new(),
    };
    let mut last_stmt = None;
    for (stmt, s) in shader.statements.iter().enumerate() {
        let Statement::Instruction(inst) = s else {
            continue;
        };
        last_stmt = Some(stmt);
        w.step(stmt, inst);
    }
    for block in std::mem::take(&mut w.stack) {
        w.report.error(
            Site::stmt(block.stmt),
            format!("{} is never closed", block.opener),
            format!("missing {}", block.kind.closer()),
        );
    }
    if w.end.is_none() {
        match last_stmt.or(shader.statements.len().checked_sub(1)) {
            Some(stmt) => {
                w.report.error(
                    Site::stmt(stmt),
                    "missing END instruction",
                    "the program ends here",
                );
            }
            None => w.report.diags.push(crate::diag::Diagnostic::error(
                "missing END instruction: the shader is empty",
            )),
        }
    }
    for b in &w.branches {
        check_branch_label(b, count, w.report, shader);
    }
    check_calls(&w.calls, &w.subs, count, w.report, shader);
}

/// CAL labels name a BGNSUB (`subs`: the instruction index of each, in
/// increasing order).
fn check_calls(
    calls: &[(usize, Option<u32>)],
    subs: &[usize],
    count: usize,
    report: &mut Reporter,
    shader: &Shader,
) {
    // each instruction's opcode name, made once for the labels that name no
    // BGNSUB (a walk of the program per bad label was quadratic)
    let mut names: Option<Vec<&str>> = None;
    for &(stmt, label) in calls {
        match label {
            None => {
                report.error(
                    Site::stmt(stmt),
                    "CAL needs a label naming a BGNSUB",
                    "no label",
                );
            }
            Some(l) if (l as usize) >= count => {
                report.error(
                    Site::stmt(stmt),
                    format!(
                        "CAL label :{l} is beyond the last instruction ({})",
                        count.saturating_sub(1)
                    ),
                    "points nowhere",
                );
            }
            Some(l) if subs.binary_search(&(l as usize)).is_err() => {
                let names = names.get_or_insert_with(|| {
                    shader.instructions().map(|i| i.opcode.name()).collect()
                });
                let found = names.get(l as usize).copied().unwrap_or("nothing");
                report.error(
                    Site::stmt(stmt),
                    format!("CAL label :{l} names a {found}, not a BGNSUB"),
                    "not a subroutine",
                );
            }
            Some(_) => {}
        }
    }
}

fn check_branch_label(b: &Branch, count: usize, report: &mut Reporter, shader: &Shader) {
    let Some(label) = b.label else { return };
    let name = match &shader.statements[b.stmt] {
        Statement::Instruction(i) => i.opcode.name(),
        _ => "IF",
    };
    if label as usize >= count {
        report.error(
            Site::stmt(b.stmt),
            format!(
                "{name} label :{label} is beyond the last instruction ({})",
                count.saturating_sub(1)
            ),
            "points nowhere",
        );
        return;
    }
    if let Some(target) = b.target
        && label != 0
        && label as usize != target
    {
        report.warning(
            Site::stmt(b.stmt),
            format!("{name} label :{label} does not name its ELSE/ENDIF (instruction {target})"),
            format!("expected :{target}"),
        );
    }
}
