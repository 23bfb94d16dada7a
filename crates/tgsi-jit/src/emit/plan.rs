//! What the compiler does with each opcode and operand: the plan of an
//! instruction (template, row kernel, flow, buffer access, inline sampling
//! or the interpreter's handler), the declared fallbacks checked against the
//! opcode table, and which operands the templates read inline.

use super::*;

/// Categories of the opcode table the compiled engine has no template for:
/// their instructions run through the interpreter's handler (LOAD, STORE
/// and the atomics of a buffer are inlined when their addresses allow, see
/// [`Plan::Load`] and [`Plan::Atomic`]; a fragment TEX or SAMPLE when its
/// view and batch allow, see [`Plan::Tex`]).
pub(super) const CALLED_CATEGORIES: &[Category] = &[
    Category::Derivative,
    Category::Fragment,
    Category::Interpolation,
    Category::Texture,
    Category::Sampling,
    Category::Memory,
    Category::Atomic,
    Category::InterLane,
    Category::Geometry,
    Category::Bindless,
    Category::Gap,
];

/// Opcodes of the other categories the compiled engine declares it runs
/// through the interpreter's handler (no template: rare in real shaders, or
/// per-lane work a template would not speed up).
pub(super) const CALLED_OPCODES: &[Opcode] = &[
    Opcode::CLOCK,
    Opcode::PK2US,
    Opcode::PK4B,
    Opcode::PK4UB,
    Opcode::UP2US,
    Opcode::UP4B,
    Opcode::UP4UB,
    Opcode::DFMA,
    Opcode::DSSG,
];

/// True when `op` is declared to run through the interpreter's handler.
pub(crate) fn declared_fallback(op: Opcode) -> bool {
    CALLED_CATEGORIES.contains(&op.info().category) || CALLED_OPCODES.contains(&op)
}

/// How the compiled engine compiles `op` at best, for the table check:
/// `"template"` (inline machine code), `"row kernel"` (the interpreter's
/// transcendental kernel over a row), `"flow"` or `"handler"`.
#[cfg(test)]
pub(crate) fn compiled_as(op: Opcode) -> &'static str {
    if template_shape(op).is_some() {
        return "template";
    }
    match plan_of(op) {
        Plan::Row(_) => "row kernel",
        Plan::Flow => "flow",
        _ => "handler",
    }
}

/// The kind (`'c'` per component, `'s'` replicated scalar, `'d'` dot
/// product, `'p'` 64-bit pairs, `'x'` a formula per channel, `'k'` packing,
/// `'u'` unpacking) and source count of `op`'s template, for the check against the
/// machine's semantics table; `None` without a template.
#[cfg(test)]
pub(crate) fn template_shape(op: Opcode) -> Option<(char, usize)> {
    match plan_of(op) {
        Plan::Comp(_, n) => Some(('c', n)),
        Plan::Scalar(_) | Plan::Row(_) if op != Opcode::POW => Some(('s', 1)),
        Plan::Row(_) => Some(('s', 2)),
        Plan::Special(Special::Pk2h) => Some(('k', 1)),
        Plan::Special(Special::Up2h) => Some(('u', 1)),
        Plan::Special(Special::Dfracexp) => Some(('f', 1)),
        Plan::Special(spec) => Some(('x', spec.sources())),
        Plan::Dot(_) => Some(('d', 2)),
        Plan::Pair(_, n, _) => Some(('p', n)),
        _ => None,
    }
}

pub(super) fn plan_of(op: Opcode) -> Plan {
    use Op32::*;
    use Opcode as O;
    let c = |o, n| Plan::Comp(o, n);
    match op {
        O::IF
        | O::UIF
        | O::ELSE
        | O::ENDIF
        | O::BGNLOOP
        | O::ENDLOOP
        | O::BRK
        | O::CONT
        | O::SWITCH
        | O::CASE
        | O::DEFAULT
        | O::ENDSWITCH
        | O::CAL
        | O::RET
        | O::BGNSUB
        | O::ENDSUB
        | O::END
        | O::NOP
        | O::MEMBAR
        | O::BARRIER => Plan::Flow,
        O::MOV | O::UARL => c(Mov, 1),
        O::FRC => c(Frc, 1),
        O::FLR => c(Round(1), 1),
        O::CEIL => c(Round(2), 1),
        O::TRUNC => c(Round(3), 1),
        O::ROUND => c(Round(0), 1),
        O::I2F => c(I2f, 1),
        O::U2F => c(U2f, 1),
        O::NOT => c(Not, 1),
        O::INEG => c(Ineg, 1),
        O::IABS => c(Iabs, 1),
        O::ADD => c(Add, 2),
        O::MUL => c(Mul, 2),
        O::DIV => c(Div, 2),
        O::SHL => c(Shl, 2),
        O::ISHR => c(Ishr, 2),
        O::USHR => c(Ushr, 2),
        O::AND => c(And, 2),
        O::OR => c(Or, 2),
        O::XOR => c(Xor, 2),
        O::UADD => c(Uadd, 2),
        O::UMUL => c(Umul, 2),
        O::ARL => c(Arl, 1),
        O::ARR => c(Arr, 1),
        O::BFI => c(Bfi, 4),
        O::SSG => c(Ssg, 1),
        O::ISSG => c(Issg, 1),
        O::LSB => c(Lsb, 1),
        O::UMSB => c(Umsb, 1),
        O::IMSB => c(Imsb, 1),
        O::POPC => c(Popc, 1),
        O::LDEXP => c(Ldexp, 2),
        O::BREV => c(Brev, 1),
        O::IBFE => c(Bfe(true), 3),
        O::UBFE => c(Bfe(false), 3),
        O::F2I => c(F2i, 1),
        O::F2U => c(F2u, 1),
        O::IMUL_HI => c(MulHi(true), 2),
        O::UMUL_HI => c(MulHi(false), 2),
        O::LRP => c(Lrp, 3),
        O::UDIV => c(IntDiv(false, false), 2),
        O::UMOD => c(IntDiv(false, true), 2),
        O::IDIV => c(IntDiv(true, false), 2),
        O::MOD => c(IntDiv(true, true), 2),
        O::FMA => c(Fma, 3),
        O::MIN => c(Min, 2),
        O::MAX => c(Max, 2),
        O::DP2 => Plan::Dot(2),
        O::DP3 => Plan::Dot(3),
        O::DP4 => Plan::Dot(4),
        O::IMAX => c(Imax, 2),
        O::IMIN => c(Imin, 2),
        O::UMAX => c(Umax, 2),
        O::UMIN => c(Umin, 2),
        O::ISGE => c(ICmp(true, P_GE), 2),
        O::ISLT => c(ICmp(true, P_LT), 2),
        O::USEQ => c(ICmp(false, P_EQ), 2),
        O::USNE => c(ICmp(false, P_NE), 2),
        O::USGE => c(ICmp(false, P_GE), 2),
        O::USLT => c(ICmp(false, P_LT), 2),
        O::FSEQ => c(FCmp(EQ_OQ), 2),
        O::FSNE => c(FCmp(NEQ_UQ), 2),
        O::FSLT => c(FCmp(LT_OQ), 2),
        O::FSGE => c(FCmp(GE_OQ), 2),
        O::SEQ => c(SCmp(EQ_OQ), 2),
        O::SNE => c(SCmp(NEQ_UQ), 2),
        O::SLT => c(SCmp(LT_OQ), 2),
        O::SGE => c(SCmp(GE_OQ), 2),
        O::SGT => c(SCmp(GT_OQ), 2),
        O::SLE => c(SCmp(LE_OQ), 2),
        O::MAD => c(Mad, 3),
        O::UMAD => c(Umad, 3),
        O::UCMP => c(Ucmp, 3),
        O::CMP => c(Cmp, 3),
        O::RCP => Plan::Scalar(Rcp),
        O::RSQ => Plan::Scalar(Rsq),
        O::SQRT => Plan::Scalar(Sqrt),
        _ => match (pair_plan_of(op), RowKernel::of(op), Special::of(op)) {
            (Some(p), _, _) => p,
            (None, Some(k), _) => Plan::Row(k),
            (None, None, Some(spec)) => Plan::Special(spec),
            (None, None, None) => {
                debug_assert!(declared_fallback(op), "{op} has no declared fallback");
                Plan::Call
            }
        },
    }
}

/// The plan of a 64-bit opcode with an inline template (None otherwise).
fn pair_plan_of(op: Opcode) -> Option<Plan> {
    use Op64::*;
    use Opcode as O;
    Some(match op {
        O::DADD => Plan::Pair(Dadd, 2, false),
        O::DMUL => Plan::Pair(Dmul, 2, false),
        O::DDIV => Plan::Pair(Ddiv, 2, false),
        O::DMAD => Plan::Pair(Dmad, 3, true),
        O::DABS => Plan::Pair(Dabs, 1, true),
        O::DNEG => Plan::Pair(Dneg, 1, true),
        O::U64ADD => Plan::Pair(U64add, 2, false),
        O::U64MUL => Plan::Pair(U64mul, 2, false),
        O::I64NEG => Plan::Pair(I64neg, 1, true),
        O::U64SHL => Plan::Pair(U64shl, 2, false),
        O::DLDEXP => Plan::Pair(Dldexp, 2, false),
        O::U64DIV => Plan::Pair(Div64(false, false), 2, false),
        O::I64DIV => Plan::Pair(Div64(true, false), 2, false),
        O::U64MOD => Plan::Pair(Div64(false, true), 2, false),
        O::I64MOD => Plan::Pair(Div64(true, true), 2, false),
        O::U64SHR => Plan::Pair(U64shr, 2, false),
        O::I64SHR => Plan::Pair(I64shr, 2, false),
        O::I64ABS => Plan::Pair(I64abs, 1, true),
        O::DRCP => Plan::Pair(Drcp, 1, true),
        O::DSQRT => Plan::Pair(Dsqrt, 1, true),
        O::DRSQ => Plan::Pair(Drsq, 1, true),
        O::DFRAC => Plan::Pair(Dfrac, 1, true),
        O::I64MIN => Plan::Pair(I64min, 2, false),
        O::I64MAX => Plan::Pair(I64max, 2, false),
        O::U64MIN => Plan::Pair(U64min, 2, false),
        O::U64MAX => Plan::Pair(U64max, 2, false),
        O::DMIN => Plan::Pair(Dmin, 2, false),
        O::DMAX => Plan::Pair(Dmax, 2, false),
        O::DROUND => Plan::Pair(Dround(0), 1, true),
        O::DFLR => Plan::Pair(Dround(1), 1, true),
        O::DCEIL => Plan::Pair(Dround(2), 1, true),
        O::DTRUNC => Plan::Pair(Dround(3), 1, true),
        O::DSLT => Plan::Pair(DCmp(LT_OQ), 2, false),
        O::DSGE => Plan::Pair(DCmp(GE_OQ), 2, false),
        O::DSEQ => Plan::Pair(DCmp(EQ_OQ), 2, false),
        O::DSNE => Plan::Pair(DCmp(NEQ_UQ), 2, false),
        O::U64SEQ => Plan::Pair(ICmp64(false, P_EQ), 2, false),
        O::U64SNE => Plan::Pair(ICmp64(false, P_NE), 2, false),
        O::U64SLT => Plan::Pair(ICmp64(false, P_LT), 2, false),
        O::U64SGE => Plan::Pair(ICmp64(false, P_GE), 2, false),
        O::I64SLT => Plan::Pair(ICmp64(true, P_LT), 2, false),
        O::I64SGE => Plan::Pair(ICmp64(true, P_GE), 2, false),
        O::I642F => Plan::Pair(I642f, 1, false),
        O::U642F => Plan::Pair(U642f, 1, false),
        O::I642D => Plan::Pair(I642d, 1, true),
        O::U642D => Plan::Pair(U642d, 1, true),
        O::D2I64 => Plan::Pair(D2i64, 1, true),
        O::D2U64 => Plan::Pair(D2u64, 1, true),
        O::I64SSG => Plan::Pair(I64ssg, 1, true),
        O::F2I64 => Plan::Pair(F2i64, 1, true),
        O::F2U64 => Plan::Pair(F2u64, 1, true),
        O::D2F => Plan::Pair(D2f, 1, false),
        O::D2I => Plan::Pair(D2i, 1, false),
        O::D2U => Plan::Pair(D2u, 1, false),
        O::I2D => Plan::Pair(I2d, 1, true),
        O::U2D => Plan::Pair(U2d, 1, true),
        O::F2D => Plan::Pair(F2d, 1, true),
        O::I2I64 => Plan::Pair(I2i64, 1, true),
        O::U2I64 => Plan::Pair(U2i64, 1, true),
        _ => return None,
    })
}

/// Per TEMP register and channel: true when every read of it is preceded, in
/// the same straight segment (no flow control or interpreter call between,
/// so the same exec mask), by a write of it. Then the value a write leaves
/// in the lanes outside the exec mask is never read, and a template may
/// write every lane (no merge with the old value, so no wait for the last
/// instruction that wrote the register). None in the fragment stage (lanes
/// outside the mask are read by derivatives) or with indirect register
/// operands; a register an interpreter call reads has none.
pub(super) fn segment_local(code: &Code, plans: &[Plan]) -> Vec<[bool; 4]> {
    let temp = code.temp;
    let n = temp.len as usize;
    let indirect = code.insts.iter().any(|inst| {
        inst.src
            .iter()
            .any(|s| matches!(s.kind, SrcKind::RegIndirect { .. }))
            || inst
                .dst
                .iter()
                .any(|d| matches!(d.kind, DstKind::RegIndirect { .. }))
    });
    if code.processor == Processor::Fragment || indirect {
        return vec![[false; 4]; n];
    }
    let index =
        |r: u32| (r >= temp.base && r < temp.base + temp.len).then(|| (r - temp.base) as usize);
    let mut local = vec![[true; 4]; n];
    let mut written = vec![[false; 4]; n];
    for (inst, plan) in code.insts.iter().zip(plans) {
        for s in &inst.src {
            if let SrcKind::Reg(r) = s.kind
                && let Some(t) = index(r)
            {
                for &c in &s.swz {
                    local[t][c as usize] &= written[t][c as usize] && !plan.may_call();
                }
            }
        }
        if *plan == Plan::Flow || plan.may_call() {
            written.iter_mut().for_each(|w| *w = [false; 4]);
            continue;
        }
        for d in &inst.dst {
            if let DstKind::Reg(r) = d.kind
                && let Some(t) = index(r)
            {
                // a 64-bit compare or narrowing writes one channel per pair,
                // another 64-bit op whole pairs (both bits asked for, or
                // either, as its template stores them)
                let mask = match plan {
                    Plan::Pair(op, ..) if op.to_words() => {
                        super::pair_shape(*op).written_words(d.mask)
                    }
                    Plan::Pair(_, _, both) => {
                        let pairs = super::pairs_of(d.mask, *both);
                        (u8::from(pairs[0]) * 0b0011) | (u8::from(pairs[1]) * 0b1100)
                    }
                    _ => d.mask,
                };
                for c in (0..4).filter(|c| mask & (1 << c) != 0) {
                    written[t][c] = true;
                }
            }
        }
    }
    local
}

/// True when a source is read inline: a direct register or constant, with
/// float sign-bit modifiers at most (`wide`: double sign-bit modifiers).
pub(super) fn src_inline(s: &Src, wide: bool) -> bool {
    if s.flush && wide {
        return false;
    }
    let kind_ok = match s.kind {
        SrcKind::Reg(_) | SrcKind::Const { .. } | SrcKind::None => true,
        SrcKind::RegIndirect { len, offset, .. } => !wide && indirect_inline(len, offset),
        SrcKind::ConstIndirect { buf, slot } => !wide && const_indirect_inline(buf, slot),
        _ => false,
    };
    // every modifier the interpreter applies: sign bits of floats and
    // doubles, wrapping abs and negation of 32- and 64-bit integers
    let mod_ok = match s.modifier {
        Modifier::None => true,
        Modifier::Apply { ty, .. } => wide == ty.is_64bit(),
    };
    kind_ok && mod_ok
}

/// True when an indirect register operand (`offset + addr` inside
/// `0..len`) is read or written inline: the 32-bit sum of the offset and
/// the address then goes outside the range exactly where the exact sum
/// does (a wrapped sum lands far outside it).
pub(super) fn indirect_inline(len: u32, offset: i32) -> bool {
    len < 1 << 24 && offset.unsigned_abs() < 1 << 24
}

/// True when an indirect constant operand is read inline: a direct buffer
/// among the first [`MAX_CONST_BUFS`], a slot of an address plus an offset
/// small enough that the 32-bit sum leaves the buffer exactly where the
/// exact one does (buffers hold fewer than 2^29 slots inline).
pub(super) fn const_indirect_inline(buf: IndexExpr, slot: IndexExpr) -> bool {
    buf.addr.is_none()
        && (0..MAX_CONST_BUFS as i32).contains(&buf.offset)
        && slot.addr.is_some()
        && slot.offset.unsigned_abs() < 1 << 24
}

/// True when the instruction's operands allow its inline template.
pub(super) fn operands_inline(inst: &Inst, plan: Plan) -> bool {
    let flush_ok = matches!(
        plan,
        Plan::Comp(..)
            | Plan::Scalar(_)
            | Plan::Dot(_)
            | Plan::Row(_)
            | Plan::Special(Special::Lit | Special::Exp | Special::Log | Special::Dst)
            | Plan::Tex(_)
    );
    // a second destination: DFRACEXP's exponent, a direct register
    let second_ok = match inst.dst[1].kind {
        DstKind::Null => true,
        DstKind::Reg(_) => plan == Plan::Special(Special::Dfracexp),
        _ => false,
    };
    if (inst.flush && !flush_ok) || !second_ok {
        return false;
    }
    let dst_ok = match inst.dst[0].kind {
        DstKind::Reg(_) | DstKind::Null => true,
        // 32-bit rows stored through `Emitter::store`
        DstKind::RegIndirect { len, offset, .. } => {
            indirect_inline(len, offset)
                && matches!(
                    plan,
                    Plan::Comp(..)
                        | Plan::Scalar(_)
                        | Plan::Dot(_)
                        | Plan::Row(_)
                        | Plan::Special(_)
                )
        }
        _ => false,
    };
    if !dst_ok {
        return false;
    }
    match plan {
        Plan::Comp(_, n) => inst.src[..n].iter().all(|s| src_inline(s, false)),
        Plan::Scalar(_) => src_inline(&inst.src[0], false),
        Plan::Dot(_) => inst.src[..2].iter().all(|s| src_inline(s, false)),
        Plan::Row(k) => {
            src_inline(&inst.src[0], false)
                && (k != RowKernel::Pow || src_inline(&inst.src[1], false))
        }
        // a compare's boolean or a narrowing's word is not saturated inline
        Plan::Pair(op, ..) if op.to_words() && inst.saturate => false,
        Plan::Pair(op, n, _) => inst.src[..n]
            .iter()
            .enumerate()
            .all(|(k, s)| src_inline(s, !(op.shifts() && k == 1 || op.widens()))),
        // PK2H's Direct3D rounding (toward zero) is the handler's; the
        // packing results are not saturated inline
        Plan::Special(Special::Pk2h) if inst.d3d => false,
        Plan::Special(Special::Pk2h | Special::Up2h | Special::Dfracexp) if inst.saturate => false,
        Plan::Special(Special::Dfracexp) => src_inline(&inst.src[0], true),
        Plan::Special(spec) => spec
            .reads()
            .iter()
            .all(|&(k, _)| src_inline(&inst.src[k], false)),
        Plan::Tex(_) => {
            src_inline(&inst.src[0], false)
                && (inst.op != Opcode::SAMPLE_L || src_inline(&inst.src[1], false))
        }
        Plan::Flow
        | Plan::Call
        | Plan::Load(_)
        | Plan::Store(_)
        | Plan::Atomic(_)
        | Plan::Resq(_) => true,
    }
}

/// [`Plan::Tex`] (its entry numbered later) for an instruction the
/// texture engine says compiled code may sample
/// ([`tgsi_exec::samples_inline`]: TEX, SAMPLE, TXL, SAMPLE_L with a
/// direct view and sampler, no offset), with operands the template reads
/// inline.
pub(super) fn tex_plan(code: &Code, inst: &Inst) -> Option<Plan> {
    let planned = tgsi_exec::samples_inline(code, inst);
    (planned && operands_inline(inst, Plan::Tex(0))).then_some(Plan::Tex(0))
}

/// LOAD/STORE of a buffer with inline operands (STORE: not in the fragment
/// stage, whose helper lanes must not write).
pub(super) fn memory_plan(code: &Code, inst: &Inst) -> Option<Plan> {
    let n = match inst.resource {
        Some(Resource::Buffer(n)) => n,
        Some(Resource::Shared) => SHARED_SLOT,
        _ => return None,
    };
    // a per-lane buffer index (BUFFER[ADDR[0].x + n]) goes through the handler
    if inst.resource_addr.is_some()
        || (n as usize >= MAX_BUFFERS && n != SHARED_SLOT)
        || inst.flush
        || inst.saturate
        || inst.dst[0].mask == 0
    {
        return None;
    }
    match inst.op {
        Opcode::LOAD
            if matches!(inst.dst[0].kind, DstKind::Reg(_)) && src_inline(&inst.src[1], false) =>
        {
            Some(Plan::Load(n))
        }
        Opcode::STORE
            if code.processor != Processor::Fragment
                && src_inline(&inst.src[0], false)
                && src_inline(&inst.src[1], false) =>
        {
            Some(Plan::Store(n))
        }
        Opcode::RESQ if matches!(inst.dst[0].kind, DstKind::Reg(_)) => Some(Plan::Resq(n)),
        // helper lanes do not write: not in the fragment stage
        op if op.info().category == Category::Atomic
            && code.processor != Processor::Fragment
            && matches!(inst.dst[0].kind, DstKind::Reg(_) | DstKind::Null)
            && inst.src[1..=if op == Opcode::ATOMCAS { 3 } else { 2 }]
                .iter()
                .all(|s| src_inline(s, false)) =>
        {
            Some(Plan::Atomic(n))
        }
        _ => None,
    }
}

/// The register pair `q` a 64-bit source's pair `p` reads whole and in
/// order (channels `2q, 2q+1`), if it does.
pub(super) fn aligned_pair(s: &Src, p: usize) -> Option<u8> {
    let (a, b) = (s.swz[2 * p] & 3, s.swz[2 * p + 1] & 3);
    (a % 2 == 0 && b == a + 1).then_some(a / 2)
}

/// How `inst` of `code` is compiled: its opcode's plan, the handler when
/// its operands are not ones the template reads, a buffer access plan.
pub(super) fn instruction_plan(code: &Code, inst: &Inst) -> Plan {
    // the legacy multiply rule (`LEGACY_MATH_RULES`): the interpreter's
    // `ops::legacy`, through the handler
    if inst.zero_wins {
        return Plan::Call;
    }
    let mut plan = plan_of(inst.op);
    if plan != Plan::Flow && plan != Plan::Call && !operands_inline(inst, plan) {
        plan = Plan::Call;
    }
    (memory_plan(code, inst).or_else(|| tex_plan(code, inst))).unwrap_or(plan)
}

/// Every instruction's plan, the texture entries numbered in program
/// order (past [`MAX_TEX`] of them: the handler).
pub(super) fn plans_of(code: &Code) -> Vec<Plan> {
    let mut entries = 0;
    (code.insts.iter())
        .map(|inst| match instruction_plan(code, inst) {
            Plan::Tex(_) if entries < MAX_TEX => {
                entries += 1;
                Plan::Tex(entries as u8 - 1)
            }
            Plan::Tex(_) => Plan::Call,
            p => p,
        })
        .collect()
}

/// The texture instructions of `code` the compiled code samples itself
/// when the view and batch allow ([`Plan::Tex`], by index).
pub(crate) fn inline_samples(code: &Code) -> Vec<usize> {
    (plans_of(code).into_iter().enumerate())
        .filter(|(_, p)| matches!(p, Plan::Tex(_)))
        .map(|(i, _)| i)
        .collect()
}

/// The instructions of `code` the compiled code runs through the
/// interpreter's handler (by index).
pub(crate) fn handler_calls(code: &Code) -> Vec<usize> {
    (plans_of(code).into_iter().enumerate())
        .filter(|(_, p)| *p == Plan::Call)
        .map(|(i, _)| i)
        .collect()
}
