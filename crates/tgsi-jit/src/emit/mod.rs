//! The template compiler: a pre-decoded program to AVX-512 machine code
//! (iced-x86 `code_asm`).
//!
//! Register use of the generated function (`extern "C" fn(*mut Ctx) -> u32`):
//! `rbx` the context, `r12` the register file, `r13` the executed-instruction
//! count, `r14` the program's constant words, `r15` the budget; `k1` the
//! execution mask (every register store is masked by it); `zmm0..3` the
//! result channels of the instruction, the others scratch. A register
//! channel is a 64-byte row of 16 lanes at `r12 + (reg * 4 + chan) * 64`.
//!
//! Flow control mirrors the interpreter (`exec::machine`) step for step:
//! the same masks (kept in the context), the same frames (at a static slot
//! per nesting depth), the same jumps when no lane is active, so the
//! instructions visited, and so the budget, are the interpreter's. The count
//! is added once per straight segment (a segment ends at every flow-control
//! instruction and after every instruction that calls the interpreter, the
//! only ones with effects outside the registers), and a segment that would
//! pass the budget stops before its first instruction with the index of the
//! instruction where the interpreter stops.

use super::native::{
    MAX_BUFFERS, MAX_CONST_BUFS, MAX_CONSTS, MAX_TEX, SHARED_SLOT, fetch_callback, mask, off, pool,
    row_callback, step_callback,
};
use cache::{Key, Region, Slot, straight_plan};
use iced_x86::code_asm::*;
use iced_x86::{IcedError, Register};
use tgsi_exec::decode::{
    Code, DstKind, IndexExpr, Inst, MAX_DEPTH, Modifier, Resource, Src, SrcKind,
};
use tgsi_exec::machine::Env;
use tgsi_ir::enums::Processor;
use tgsi_ir::opcode::{Category, Opcode, OperandType, PairShape};

/// A direct constant word a program reads: `CONST[buf][slot]` channel `chan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ConstRef {
    buf: u32,
    slot: i32,
    chan: u8,
}

impl ConstRef {
    /// The word in this run (0 when the buffer or the slot is missing), as the interpreter reads it.
    pub fn word(&self, env: &Env) -> u32 {
        if self.slot < 0 {
            return 0;
        }
        env.consts
            .get(self.buf as usize)
            .and_then(|w| w.get(self.slot as usize * 4 + self.chan as usize))
            .copied()
            .unwrap_or(0)
    }
}

/// The row kernels the generated code calls (the interpreter's own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RowKernel {
    Sin = 0,
    Cos,
    Ex2,
    Lg2,
    Pow,
}

impl RowKernel {
    const ALL: [RowKernel; 5] = [
        RowKernel::Sin,
        RowKernel::Cos,
        RowKernel::Ex2,
        RowKernel::Lg2,
        RowKernel::Pow,
    ];

    fn of(op: Opcode) -> Option<RowKernel> {
        Some(match op {
            Opcode::SIN => RowKernel::Sin,
            Opcode::COS => RowKernel::Cos,
            Opcode::EX2 => RowKernel::Ex2,
            Opcode::LG2 => RowKernel::Lg2,
            Opcode::POW => RowKernel::Pow,
            _ => return None,
        })
    }

    /// Runs kernel number `kind` on rows `a` (and `b` for POW) into `out`.
    pub fn apply(kind: u64, a: &[u32; 16], b: &[u32; 16], out: &mut [u32; 16]) {
        use tgsi_exec::math;
        match RowKernel::ALL.get(kind as usize) {
            Some(RowKernel::Sin) => math::sin_lanes(a, out),
            Some(RowKernel::Cos) => math::cos_lanes(a, out),
            Some(RowKernel::Ex2) => math::ex2_lanes(a, out),
            Some(RowKernel::Lg2) => math::lg2_lanes(a, out),
            Some(RowKernel::Pow) => math::pow_lanes(a, b, out),
            None => *out = [0; 16],
        }
    }
}

/// How one instruction is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Plan {
    /// Flow control, inline.
    Flow,
    /// A per-component 32-bit op, inline.
    Comp(Op32, usize),
    /// A replicated scalar, inline (RCP, RSQ, SQRT).
    Scalar(Op32),
    /// A dot product of the first n channels (DP2, DP3, DP4), inline.
    Dot(usize),
    /// A replicated scalar through a row kernel.
    Row(RowKernel),
    /// A 64-bit pair op, inline: (op, sources, both halves of the writemask needed).
    Pair(Op64, usize, bool),
    /// The interpreter's handler for this one instruction.
    Call,
    /// An opcode with a template per channel (LIT ... UP2H), inline.
    Special(Special),
    /// LOAD / STORE of `BUFFER[n]` (or of the shared memory, entry
    /// [`SHARED_SLOT`]): inline when every active address is word-aligned
    /// (STORE: and the lanes' words cannot overlap), else the interpreter's
    /// handler.
    Load(u32),
    Store(u32),
    /// An atomic on `BUFFER[n]` or the shared memory: a locked
    /// read-modify-write per lane, in lane order, when every active
    /// address is word-aligned, else the interpreter's handler.
    Atomic(u32),
    /// RESQ of `BUFFER[n]` or the shared memory: its byte length, when the
    /// buffer is usable inline, else the interpreter's handler.
    Resq(u32),
    /// A fragment TEX or SAMPLE sampled inline through texture entry n
    /// (`emit/texture.rs`), else the interpreter's handler.
    Tex(u8),
}

impl Plan {
    /// True when the instruction may run by the interpreter's handler: a
    /// call, or a template that hands a batch with a lane outside its
    /// short forms to the handler (LIT, EXP, LOG).
    fn may_call(self) -> bool {
        matches!(
            self,
            Plan::Call | Plan::Special(Special::Lit | Special::Exp | Special::Log) | Plan::Tex(_)
        )
    }
}

/// 32-bit templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op32 {
    Mov,
    Frc,
    Round(i32),
    I2f,
    U2f,
    Not,
    Ineg,
    Iabs,
    Add,
    Mul,
    Div,
    Shl,
    Ishr,
    Ushr,
    And,
    Or,
    Xor,
    Uadd,
    Umul,
    Imax,
    Imin,
    Umax,
    Umin,
    /// minNum / maxNum with the machine's signed-zero rule (`ops::min`, `ops::max`).
    Min,
    Max,
    /// `(int)floor(x)` and truncations to i32 / u32, saturating, NaN → 0.
    Arl,
    Arr,
    Bfi,
    F2i,
    F2u,
    /// Float sign (1.0, -1.0 or +0; NaN → +0) and integer sign.
    Ssg,
    Issg,
    /// LSB, UMSB, IMSB (`vplzcntd`), POPC (SWAR bit sums), BREV, and
    /// IBFE (true) / UBFE.
    Brev,
    Bfe(bool),
    /// `x * 2^n` rounded once (`vscalefps` by the exponent made a float,
    /// exact to 2^24, and past ±300 every result is 0 or infinite).
    Ldexp,
    Lsb,
    Umsb,
    Imsb,
    Popc,
    /// High 32 bits of the 64-bit product (signed or not).
    MulHi(bool),
    /// `a·b + (1 − a)·c`, each step rounded.
    Lrp,
    /// Fused multiply-add with the machine's NaN rule.
    Fma,
    /// Integer quotient or remainder (signed, remainder): through f64, whose
    /// quotient of two 32-bit integers truncates to the exact one.
    IntDiv(bool, bool),
    /// Integer compare (signed, predicate) to an all-ones mask.
    ICmp(bool, i32),
    /// Float compare (predicate) to an all-ones mask.
    FCmp(i32),
    /// Float compare (predicate) to 1.0 / 0.0.
    SCmp(i32),
    Mad,
    Umad,
    Ucmp,
    Cmp,
    Rcp,
    Rsq,
    Sqrt,
}

/// 64-bit templates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op64 {
    Dadd,
    Dmul,
    Ddiv,
    Dmad,
    Dabs,
    Dneg,
    U64add,
    U64mul,
    I64neg,
    U64shl,
    U64shr,
    I64shr,
    /// DLDEXP: the double scaled by 2^count (`vscalefpd`, one rounding).
    Dldexp,
    /// U64DIV, I64DIV, U64MOD, I64MOD (signed, remainder): a scalar
    /// division per lane.
    Div64(bool, bool),
    /// DRCP, DSQRT, DRSQ (one division and/or square root each, as the
    /// machine's), DFRAC (`x - floor(x)`).
    Drcp,
    Dsqrt,
    Drsq,
    Dfrac,
    I64abs,
    I64min,
    I64max,
    U64min,
    U64max,
    /// DMIN / DMAX (NaN loses, the sign of equal zeros by the rule: see
    /// `ops::dmin`).
    Dmin,
    Dmax,
    /// DROUND, DFLR, DCEIL, DTRUNC: `vrndscalepd`'s rounding mode.
    Dround(i32),
    /// Two pairs to a 32-bit boolean in x (from xy) and z (from zw):
    /// `vcmppd` with its predicate, or `vpcmpq`/`vpcmpuq` (signed) with theirs.
    DCmp(i32),
    ICmp64(bool, i32),
    /// 64 → 32 bits: pair xy (zw) to the first (second) written channel.
    D2f,
    D2i,
    D2u,
    I642f,
    U642f,
    /// 64-bit integer ↔ double, pair to pair.
    I642d,
    U642d,
    D2i64,
    D2u64,
    I64ssg,
    /// 32-bit float channel to a 64-bit integer pair.
    F2i64,
    F2u64,
    /// 32 → 64 bits: source channel x (y) to pair xy (zw).
    I2d,
    U2d,
    F2d,
    I2i64,
    U2i64,
    /// 32-bit bitwise ops whose channels line up with 64-bit pairs, done on
    /// a pair held as 64-bit lanes (the same bits, no split and rejoin).
    Mov64,
    Not64,
    And64,
    Or64,
    Xor64,
}

impl Op64 {
    /// The count-taking ops (source 1 a 32-bit count): the shifts and
    /// DLDEXP.
    fn shifts(self) -> bool {
        matches!(
            self,
            Op64::U64shl | Op64::U64shr | Op64::I64shr | Op64::Dldexp
        )
    }

    /// The channel of source 1 holding pair p's count (DLDEXP: x and z,
    /// the shifts: x and y).
    fn count_channel(self, p: usize) -> usize {
        if self == Op64::Dldexp { 2 * p } else { p }
    }

    /// The compares (a 32-bit result per pair).
    fn compares(self) -> bool {
        matches!(self, Op64::DCmp(_) | Op64::ICmp64(..))
    }

    /// The ops with a 32-bit result per pair: compares and narrowings.
    fn to_words(self) -> bool {
        self.compares()
            || matches!(
                self,
                Op64::D2f | Op64::D2i | Op64::D2u | Op64::I642f | Op64::U642f
            )
    }

    /// The 64-bit integer results built apart ([`Emitter::int64_result`]).
    fn builds_int64(self) -> bool {
        matches!(
            self,
            Op64::D2i64 | Op64::D2u64 | Op64::F2i64 | Op64::F2u64 | Op64::I64ssg
        )
    }

    /// The widening conversions (source 0 a 32-bit channel per pair).
    fn widens(self) -> bool {
        matches!(
            self,
            Op64::I2d
                | Op64::U2d
                | Op64::F2d
                | Op64::I2i64
                | Op64::U2i64
                | Op64::F2i64
                | Op64::F2u64
        )
    }
}

// vcmpps predicates
const EQ_OQ: i32 = 0x00;
const LT_OQ: i32 = 0x11;
const LE_OQ: i32 = 0x12;
const NEQ_UQ: i32 = 0x04;
const GE_OQ: i32 = 0x1D;
const GT_OQ: i32 = 0x1E;
const UNORD_Q: i32 = 0x03;
const ORD_Q: i32 = 0x07;
const NGT_UQ: i32 = 0x0A;
const NLT_UQ: i32 = 0x05;
// vpcmpd predicates
const P_EQ: i32 = 0;
const P_LT: i32 = 1;
const P_NE: i32 = 4;
const P_GE: i32 = 5;

/// The output of [`emit`].
pub(super) struct Output {
    pub bytes: Vec<u8>,
    pub consts: Vec<ConstRef>,
    pub inlined: usize,
    pub called: usize,
    /// Loops whose rows stay in vector registers.
    pub cached_loops: usize,
    /// Straight runs whose rows stay in vector registers.
    pub cached_runs: usize,
    /// The deepest static nesting of control-flow frames.
    pub depth: usize,
    /// Constant buffers `0..const_bufs` read with indirect slots inline.
    pub const_bufs: usize,
    /// Some LOAD or STORE reads the buffers or the shared memory inline.
    pub memory: bool,
    /// The instructions of [`Plan::Tex`], by entry.
    pub tex: Vec<usize>,
}

/// A static control-flow frame: its kind and its slot (nesting depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    If,
    Loop,
    Switch,
    /// The two slots of a subroutine call's saved masks.
    Call,
}

fn zmm(n: u32) -> AsmRegisterZmm {
    get_zmm(Register::ZMM0 + n).expect("zmm register number below 32")
}

fn ymm(n: u32) -> AsmRegisterYmm {
    get_ymm(Register::YMM0 + n).expect("ymm register number below 32")
}

fn xmm(n: u32) -> AsmRegisterXmm {
    get_xmm(Register::XMM0 + n).expect("xmm register number below 32")
}

/// An indirect register operand's index: `offset + addr[lane]`, inside
/// `0..len`.
struct Indirect {
    len: u32,
    offset: i32,
    addr: tgsi_exec::decode::AddrRef,
}

struct Emitter<'c> {
    a: CodeAssembler,
    code: &'c Code,
    consts: Vec<ConstRef>,
    /// Loop caches by BGNLOOP index, and the one being emitted.
    regions: Vec<Option<Region>>,
    /// Straight-run caches by first instruction.
    runs: Vec<Option<Region>>,
    active: Option<Region>,
    /// The instruction being emitted.
    at: usize,
    labels: Vec<CodeLabel>,
    end: CodeLabel,
    error: CodeLabel,
    budget: CodeLabel,
    callback_status: CodeLabel,
    /// Stops the batch at a BARRIER (status 3; `Ctx::resume` says where it resumes).
    suspend: CodeLabel,
    /// Per TEMP register and channel: whether its value in lanes the exec
    /// mask leaves out is never read ([`segment_local`]).
    local: Vec<[bool; 4]>,
    /// Constant buffers `0..const_bufs` read with indirect slots.
    const_bufs: usize,
    /// Code the instructions jump to only in rare cases, emitted after the
    /// function's end (so that the common path runs through contiguous
    /// code): see `texture::Cold`.
    cold: Vec<texture::Cold>,
    /// Whether the sample being emitted may read a 2D array (its lookups
    /// then add each lane's layer: see `texture::Emitter::layers`).
    tex_array: bool,
}

/// An encoding error or an operand a template cannot take.
#[derive(Debug)]
struct EmitError(String);

impl From<IcedError> for EmitError {
    fn from(e: IcedError) -> Self {
        EmitError(e.to_string())
    }
}

impl From<&str> for EmitError {
    fn from(e: &str) -> Self {
        EmitError(e.to_string())
    }
}

type R = Result<(), EmitError>;
/// Assembler-level result.
type A = Result<(), IcedError>;

/// Binds `label` here (a zero-length mark, so that several labels may
/// share one address).
fn place(a: &mut CodeAssembler, mut label: CodeLabel) -> A {
    a.set_label(&mut label)?;
    a.zero_bytes()
}

fn row_off(reg: u32, chan: u8) -> i32 {
    ((reg as i64 * 4 + (chan & 3) as i64) * 64) as i32
}

/// How many instructions after a store [`Emitter::next_reads`] looks at.
const READ_AHEAD: usize = 3;

/// Every mask the generated code keeps in a register.
const MASKS: [i32; 7] = mask::ALL;

/// The register holding mask `m` (saved to the context around calls).
fn mreg(m: i32) -> AsmRegister32 {
    match m {
        mask::ALIVE => r8d,
        mask::COND => r9d,
        mask::LOOP => r10d,
        mask::CONT => r11d,
        mask::SWITCH => esi,
        mask::FUNC => edi,
        _ => ebp,
    }
}

fn mask_off(m: i32) -> i32 {
    off::MASKS + 4 * m
}

fn pool_off(p: i32) -> i32 {
    off::POOL + 4 * p
}

fn frame_off(depth: usize, word: usize) -> i32 {
    off::FRAMES + (depth * 16 + word * 4) as i32
}

/// Whether a source's modifier changes the 32-bit word of channel `c` it
/// fetches (as the interpreter's `fill_src`): a float or untyped source's
/// sign-bit operations and an integer source's wrapping abs and negation
/// on a 32-bit fetch; on a `wide` (pair) fetch, a double's sign-bit
/// operations on its high word (a 64-bit integer's are applied to the
/// joined pair: [`Emitter::fetch_pair`]).
fn modifies_word(s: &Src, c: usize, wide: bool) -> bool {
    match s.modifier {
        Modifier::Apply { ty, abs, neg } if abs || neg => {
            if wide {
                ty == OperandType::Double && c % 2 == 1
            } else {
                !ty.is_64bit()
            }
        }
        _ => false,
    }
}

/// The 32-bit channel each pair's result goes to for an op with a 32-bit
/// result per pair ([`Op64::to_words`]): [`PairShape::word_channels`], the
/// interpreter's rule (a compare's x and z, a narrowing's x and y).
fn word_channels(op: Op64, mask: u8) -> [Option<usize>; 2] {
    pair_shape(op).word_channels(mask)
}

/// The shape of a 64-bit op that writes 32-bit words (`Op64::to_words`).
fn pair_shape(op: Op64) -> PairShape {
    if op.compares() {
        PairShape::Compare
    } else {
        PairShape::Narrow
    }
}

/// Pairs selected by a writemask: both bits (`both`) or either bit.
fn pairs_of(mask: u8, both: bool) -> [bool; 2] {
    if both {
        [mask & 3 == 3, mask & 12 == 12]
    } else {
        [mask & 3 != 0, mask & 12 != 0]
    }
}

/// Compiles `code`, or says which instruction keeps the compiled engine from running it.
pub(super) fn emit(code: &Code) -> Result<Output, String> {
    emit_inner(code).map_err(|e| e.0)
}

fn emit_inner(code: &Code) -> Result<Output, EmitError> {
    let n = code.insts.len();
    // Plans, static frames and segment starts.
    let mut plans = Vec::with_capacity(n);
    let mut depth_at = Vec::with_capacity(n);
    let mut stacks: Vec<Vec<Frame>> = Vec::with_capacity(n);
    let mut stack: Vec<Frame> = Vec::new();
    let refuse = |i: usize, inst: &Inst, why: &str| -> Result<Output, EmitError> {
        Err(EmitError(format!(
            "instruction {i} ({}) is not compiled: {why}",
            inst.op
        )))
    };
    let all = plans_of(code);
    for (i, inst) in code.insts.iter().enumerate() {
        let plan = all[i];
        depth_at.push(stack.len());
        stacks.push(stack.clone());
        match inst.op {
            Opcode::IF | Opcode::UIF => stack.push(Frame::If),
            Opcode::BGNLOOP => stack.push(Frame::Loop),
            Opcode::SWITCH => stack.push(Frame::Switch),
            Opcode::ENDIF | Opcode::ENDLOOP | Opcode::ENDSWITCH => {
                stack.pop();
            }
            _ => {}
        }
        if stack.len() > MAX_DEPTH {
            return refuse(i, inst, "control flow nests deeper than the machine allows");
        }
        plans.push(plan);
    }
    let mut leader = vec![false; n + 1];
    leader[0] = true;
    for (i, p) in plans.iter().enumerate() {
        if *p == Plan::Flow {
            leader[i] = true;
            leader[i + 1] = true;
        }
        if matches!(
            p,
            Plan::Call | Plan::Load(_) | Plan::Store(_) | Plan::Atomic(_) | Plan::Resq(_)
        ) {
            leader[i + 1] = true;
        }
    }
    let mut e = Emitter::new(code, &plans)?;
    for b in 0..n {
        if code.insts[b].op == Opcode::BGNLOOP {
            let end = code.insts[b].target as usize;
            e.regions[b] = e.region(b + 1..end, end, &plans, false);
        }
    }
    // straight runs (not inside a cached loop: the loop's cache is active there)
    let mut b = 0;
    while b < n {
        let run = (b..n).take_while(|&i| straight_plan(plans[i])).count();
        if run >= 2 {
            e.runs[b] = e
                .region(b..b + run, b + run - 1, &plans, true)
                .filter(|r| !r.slots.is_empty());
        }
        b += run.max(1);
    }
    e.prologue()?;
    let layout = calls::Layout {
        plans: &plans,
        depth_at: &depth_at,
        stacks: &stacks,
        leader: &leader,
    };
    let mut out = calls::Emitted {
        stubs: Vec::new(),
        deepest: depth_at.iter().copied().max().unwrap_or(0) + 1,
    };
    e.emit_range(&layout, 0..n, &calls::Nest::main(), &mut out)?;
    e.finish(&out.stubs)?;
    let inlined = plans.iter().filter(|p| **p != Plan::Call).count();
    let cached_loops = e.regions.iter().flatten().count();
    let cached_runs = e.runs.iter().flatten().count();
    let bytes = e.a.assemble(0)?;
    Ok(Output {
        bytes,
        consts: e.consts,
        inlined,
        called: n - inlined,
        cached_loops,
        cached_runs,
        depth: out.deepest,
        const_bufs: e.const_bufs,
        tex: (plans.iter().enumerate())
            .filter(|(_, p)| matches!(p, Plan::Tex(_)))
            .map(|(i, _)| i)
            .collect(),
        memory: plans.iter().any(|p| {
            matches!(
                p,
                Plan::Load(_) | Plan::Store(_) | Plan::Atomic(_) | Plan::Resq(_)
            )
        }),
    })
}

impl<'c> Emitter<'c> {
    fn new(code: &'c Code, plans: &[Plan]) -> Result<Emitter<'c>, EmitError> {
        let mut a = CodeAssembler::new(64)?;
        let labels = (0..=code.insts.len()).map(|_| a.create_label()).collect();
        let end = a.create_label();
        let error = a.create_label();
        let budget = a.create_label();
        let callback_status = a.create_label();
        let suspend = a.create_label();
        Ok(Emitter {
            a,
            code,
            consts: Vec::new(),
            regions: vec![None; code.insts.len()],
            runs: vec![None; code.insts.len()],
            active: None,
            at: 0,
            labels,
            end,
            error,
            budget,
            callback_status,
            suspend,
            local: segment_local(code, plans),
            const_bufs: 0,
            cold: Vec::new(),
            tex_array: false,
        })
    }

    fn prologue(&mut self) -> A {
        let a = &mut self.a;
        a.push(rbx)?;
        a.push(rbp)?;
        a.push(r12)?;
        a.push(r13)?;
        a.push(r14)?;
        a.push(r15)?;
        a.sub(rsp, 8)?;
        a.mov(rbx, rdi)?;
        a.mov(r12, qword_ptr(rbx + off::REGS))?;
        a.mov(r13, qword_ptr(rbx + off::EXECUTED))?;
        a.mov(r14, qword_ptr(rbx + off::CONSTS))?;
        a.mov(r15, qword_ptr(rbx + off::MAX))?;
        self.masks_in()?;
        self.update_exec()?;
        // a batch stopped at a BARRIER resumes after it
        for (b, inst) in self.code.insts.iter().enumerate() {
            if inst.op == Opcode::BARRIER {
                self.a.cmp(dword_ptr(rbx + off::RESUME), (b + 1) as u32)?;
                self.a.je(self.labels[b + 1])?;
            }
        }
        Ok(())
    }

    /// Adds a segment's length to the count and leaves through `stub` past the budget.
    fn count(&mut self, len: i32, stub: CodeLabel) -> A {
        self.a.add(r13, len)?;
        self.a.cmp(r13, r15)?;
        self.a.ja(stub)
    }

    fn finish(&mut self, stubs: &[(CodeLabel, usize, usize)]) -> A {
        // Falling off the end ends the batch.
        let last = self.labels[self.code.insts.len()];
        place(&mut self.a, last)?;
        self.a.jmp(self.end)?;
        for &(stub, start, len) in stubs {
            place(&mut self.a, stub)?;
            self.a.mov(dword_ptr(rbx + off::SEG_START), start as u32)?;
            self.a.mov(dword_ptr(rbx + off::SEG_LEN), len as u32)?;
            self.a.jmp(self.budget)?;
        }
        let status_label = self.callback_status;
        place(&mut self.a, status_label)?;
        self.a.cmp(eax, 2)?;
        self.a.je(self.end)?;
        self.a.jmp(self.error)?;
        let exit = self.a.create_label();
        for (label, status) in [
            (self.end, 0u32),
            (self.error, 1),
            (self.budget, 2),
            (self.suspend, 3),
        ] {
            place(&mut self.a, label)?;
            self.a.mov(eax, status)?;
            self.a.jmp(exit)?;
        }
        let a = &mut self.a;
        place(a, exit)?;
        a.mov(qword_ptr(rbx + off::EXECUTED), r13)?;
        for m in MASKS {
            a.mov(dword_ptr(rbx + mask_off(m)), mreg(m))?;
        }
        a.vzeroupper()?;
        a.add(rsp, 8)?;
        a.pop(r15)?;
        a.pop(r14)?;
        a.pop(r13)?;
        a.pop(r12)?;
        a.pop(rbp)?;
        a.pop(rbx)?;
        a.ret()?;
        for cold in std::mem::take(&mut self.cold) {
            self.emit_cold(cold)?;
        }
        Ok(())
    }

    /// `exec = alive & cond & loop & cont & switch & func` into ebp and k1.
    fn update_exec(&mut self) -> A {
        let a = &mut self.a;
        a.mov(ebp, r8d)?;
        for m in [r9d, r10d, r11d, esi, edi] {
            a.and(ebp, m)?;
        }
        self.exec_to_k()
    }

    /// k1 = exec (ebp) and k4 = its lanes 8..16 (for 64-bit lanes in high halves).
    fn exec_to_k(&mut self) -> A {
        self.a.kmovw(k1, ebp)?;
        self.a.kshiftrw(k4, k1, 8)
    }

    /// Writes the mask registers to the context (before a call or the exit).
    fn masks_out(&mut self) -> A {
        for m in MASKS {
            self.a.mov(dword_ptr(rbx + mask_off(m)), mreg(m))?;
        }
        Ok(())
    }

    /// Reads the mask registers back from the context (after a call) and k1.
    fn masks_in(&mut self) -> A {
        for m in MASKS {
            self.a.mov(mreg(m), dword_ptr(rbx + mask_off(m)))?;
        }
        self.a.kmovw(k1, ebp)?;
        self.a.kshiftrw(k4, k1, 8)
    }

    /// Jumps to instruction `t` when no lane is active.
    fn skip_if_idle(&mut self, t: usize) -> A {
        self.a.test(ebp, ebp)?;
        self.a.jz(self.labels[t])
    }

    fn const_index(&mut self, buf: u32, slot: i32, chan: u8) -> Option<usize> {
        let r = ConstRef { buf, slot, chan };
        if let Some(k) = self.consts.iter().position(|c| *c == r) {
            return Some(k);
        }
        if self.consts.len() >= MAX_CONSTS {
            return None;
        }
        self.consts.push(r);
        Some(self.consts.len() - 1)
    }

    /// The key of a source channel, when it is a direct row or constant.
    fn key_of(&mut self, s: &Src, c: usize) -> Option<Key> {
        let chan = s.swz[c] & 3;
        match s.kind {
            SrcKind::Reg(reg) => Some(Key::Row(reg, chan)),
            SrcKind::Const { buf, slot } => self.const_index(buf, slot, chan).map(Key::Const),
            _ => None,
        }
    }

    /// Register channel `swz[c]` of a source with its 32-bit sign-bit
    /// modifiers (`wide`: only on odd `c`, as a double's apply to the high
    /// word): the loop cache register holding it when it is unmodified,
    /// else loaded into `z`. Returns the register number (never to be written).
    fn fetch(&mut self, z: u32, s: &Src, c: usize, wide: bool) -> Result<u32, EmitError> {
        let modified = modifies_word(s, c, wide);
        let key = self.key_of(s, c);
        let r = zmm(z);
        let pair = match s.kind {
            SrcKind::Reg(reg) => self.slot(Key::Pair(reg, (s.swz[c] & 3) / 2)),
            _ => None,
        };
        match (key.and_then(|k| self.cached(k)), pair) {
            (Some(cz), _) if !modified && !s.flush => return Ok(cz),
            (Some(cz), _) => self.a.vmovdqa32(r, zmm(cz))?,
            (None, Some(ps)) => {
                let (lo, hi) = ps.halves();
                let odd = (s.swz[c] & 1) as i32;
                self.a
                    .vmovdqu32(r, zmmword_ptr(rbx + off::PERM + 128 + 64 * odd))?;
                self.a.vpermi2d(r, zmm(lo), zmm(hi))?;
            }
            (None, None) => match (s.kind, key) {
                (SrcKind::Reg(reg), _) => self
                    .a
                    .vmovdqu32(r, zmmword_ptr(r12 + row_off(reg, s.swz[c] & 3)))?,
                (SrcKind::Const { .. }, Some(Key::Const(k))) => {
                    self.a.vpbroadcastd(r, dword_ptr(r14 + (4 * k) as i32))?
                }
                (SrcKind::Const { .. }, _) => return Err("too many distinct constants".into()),
                (SrcKind::ConstIndirect { buf, slot }, _) => {
                    self.gather_constants(z, buf, slot, s.swz[c] & 3)?
                }
                (
                    SrcKind::RegIndirect {
                        base,
                        len,
                        offset,
                        addr,
                    },
                    _,
                ) => {
                    let at = Indirect { len, offset, addr };
                    self.indirect_lanes(&at, k7)?;
                    self.a.vpxord(r, r, r)?;
                    let row = row_off(base, s.swz[c] & 3);
                    self.a.vpgatherdd(r.k7(), ptr(r12 + zmm(14) * 4 + row))?;
                }
                (SrcKind::None, _) => self.a.vpxord(r, r, r)?,
                _ => return Err("indirect operand in an inline template".into()),
            },
        }
        // as the interpreter's fetch: denormals flushed, then the modifiers
        if s.flush && !wide {
            self.flush32(z)?;
        }
        if let Modifier::Apply { ty, abs, neg } = s.modifier
            && modifies_word(s, c, wide)
        {
            let a = &mut self.a;
            if matches!(ty, OperandType::Int | OperandType::Uint) {
                // wrapping integer abs and negation (`ops::modify`): -r = !r + 1
                if abs {
                    a.vpabsd(r, r)?;
                }
                if neg {
                    a.vpternlogd(r, r, r, 0x55)?;
                    a.vpsubd(r, r, dword_bcst(rbx + pool_off(pool::ALL_ONES)))?;
                }
            } else {
                if abs {
                    a.vpandd(r, r, dword_bcst(rbx + pool_off(pool::ABS)))?;
                }
                if neg {
                    a.vpxord(r, r, dword_bcst(rbx + pool_off(pool::SIGN)))?;
                }
            }
        }
        Ok(z)
    }

    /// zmm14 = each lane's word index from the register `at` starts at
    /// (`64 × (offset + addr) + lane`) and `k` = the lanes whose register
    /// `offset + addr` is inside `0..len` ([`plan::indirect_inline`] keeps
    /// the 32-bit sum exact there; zmm31 and eax scratch).
    fn indirect_lanes(&mut self, at: &Indirect, k: AsmRegisterK) -> A {
        self.address_row(14, at.addr)?;
        let a = &mut self.a;
        let (idx, t) = (zmm(14), zmm(31));
        a.mov(eax, at.offset as u32)?;
        a.vpbroadcastd(t, eax)?;
        a.vpaddd(idx, idx, t)?;
        a.mov(eax, at.len)?;
        a.vpbroadcastd(t, eax)?;
        a.vpcmpud(k, idx, t, P_LT)?;
        a.vpslld(idx, idx, 6)?;
        a.vpaddd(idx, idx, zmmword_ptr(rbx + pool_off(pool::LANE_NUMBERS)))
    }

    /// zmm `z` = the address register row `addr` (from the loop cache
    /// where it lives there).
    fn address_row(&mut self, z: u32, addr: tgsi_exec::decode::AddrRef) -> A {
        let (reg, chan) = (addr.reg, addr.chan & 3);
        let r = zmm(z);
        if let Some(cz) = self.cached(Key::Row(reg, chan)) {
            return self.a.vmovdqa32(r, zmm(cz));
        }
        if let Some(ps) = self.slot(Key::Pair(reg, chan / 2)) {
            let (lo, hi) = ps.halves();
            let odd = (chan & 1) as i32;
            self.a
                .vmovdqu32(r, zmmword_ptr(rbx + off::PERM + 128 + 64 * odd))?;
            return self.a.vpermi2d(r, zmm(lo), zmm(hi));
        }
        self.a.vmovdqu32(r, zmmword_ptr(r12 + row_off(reg, chan)))
    }

    /// zmm `z` = word `4 × slot + chan` of constant buffer `buf` (direct)
    /// at each lane's slot (`slot`: an address plus an offset), 0 outside
    /// the buffer, as the interpreter's fetch ([`plan::const_indirect_inline`]
    /// keeps the 32-bit slot exact; zmm14, zmm31, rax scratch).
    fn gather_constants(&mut self, z: u32, buf: IndexExpr, slot: IndexExpr, chan: u8) -> R {
        let (Some(addr), None) = (slot.addr, buf.addr) else {
            return Err("a constant operand this template does not read".into());
        };
        let b = buf.offset as usize;
        if b >= MAX_CONST_BUFS {
            return Err("a constant buffer past those read inline".into());
        }
        self.const_bufs = self.const_bufs.max(b + 1);
        let entry = off::CONST_BUFS + b as i32 * off::CONST_BUF_SIZE;
        let (r, idx, t) = (zmm(z), zmm(14), zmm(31));
        self.address_row(14, addr)?;
        let a = &mut self.a;
        a.mov(eax, slot.offset as u32)?;
        a.vpbroadcastd(t, eax)?;
        a.vpaddd(idx, idx, t)?;
        let slots = dword_bcst(rbx + entry + off::CONST_BUF_SLOTS + 4 * chan as i32);
        a.vpcmpud(k7, idx, slots, P_LT)?;
        a.vpslld(idx, idx, 2)?;
        a.mov(rax, qword_ptr(rbx + entry))?;
        a.vpxord(r, r, r)?;
        a.vpgatherdd(r.k7(), ptr(rax + idx * 4 + 4 * chan as i32))?;
        Ok(())
    }

    /// Stores zmm `z` to channel `c` of the destination for the active
    /// lanes (an indirect one: for those whose register is inside its range).
    fn store(&mut self, inst: &Inst, c: usize, z: u32) -> A {
        self.store_to(inst.dst[0].kind, c, z)
    }

    /// [`Self::store`] to the destination `kind` (of either slot; zmm14,
    /// zmm15 scratch).
    fn store_to(&mut self, kind: DstKind, c: usize, z: u32) -> A {
        if let DstKind::RegIndirect {
            base,
            len,
            offset,
            addr,
        } = kind
        {
            let at = Indirect { len, offset, addr };
            self.indirect_lanes(&at, k7)?;
            self.a.kandw(k7, k7, k1)?;
            let row = row_off(base, c as u8);
            return self
                .a
                .vpscatterdd(ptr(r12 + zmm(14) * 4 + row).k7(), zmm(z));
        }
        if let DstKind::Reg(reg) = kind {
            if let Some(ps) = self.slot(Key::Pair(reg, c as u8 / 2)) {
                return self.store_into_pair(ps, c % 2, z);
            }
            match self.cached(Key::Row(reg, c as u8)) {
                Some(cz) => self.a.vmovdqa32(zmm(cz).k1(), zmm(z))?,
                // a row one of the next instructions reads is stored whole
                // (its other lanes merged in a register): a load of a row
                // stored under a mask waits until the store reaches the cache
                None if self.next_reads(reg, c) => {
                    let row = zmmword_ptr(r12 + row_off(reg, c as u8));
                    self.a.vmovdqu32(zmm(15), row)?;
                    self.a.vmovdqa32(zmm(15).k1(), zmm(z))?;
                    self.a.vmovdqu32(row, zmm(15))?;
                }
                None => self
                    .a
                    .vmovdqu32(zmmword_ptr(r12 + row_off(reg, c as u8)).k1(), zmm(z))?,
            }
        }
        Ok(())
    }

    /// Whether one of the [`READ_AHEAD`] instructions after the one being
    /// emitted reads channel `c` of register `reg` directly.
    fn next_reads(&self, reg: u32, c: usize) -> bool {
        let next = self.code.insts.iter().skip(self.at + 1).take(READ_AHEAD);
        next.flat_map(|i| &i.src).any(|s| {
            matches!(s.kind, SrcKind::Reg(r) if r == reg)
                && s.swz.iter().any(|&w| usize::from(w & 3) == c)
        })
    }

    /// Writes 32-bit row `z` as word `h` (0 low, 1 high) of a pair-form cache
    /// entry, for the active lanes (zmm14, zmm15 scratch).
    fn store_into_pair(&mut self, ps: Slot, h: usize, z: u32) -> A {
        let (lo, hi) = ps.halves();
        let keep = if h == 0 {
            pool::KEEP_HIGH
        } else {
            pool::KEEP_LOW
        };
        let a = &mut self.a;
        a.vextracti32x8(ymm(15), zmm(z), 1)?;
        a.vpmovzxdq(zmm(14), ymm(z))?;
        a.vpmovzxdq(zmm(15), ymm(15))?;
        for (t, half, k) in [(14, lo, k1), (15, hi, k4)] {
            if h == 1 {
                a.vpsllq(zmm(t), zmm(t), 32)?;
            }
            // t = word | (old & keep): 0xF8 = A | (B & C)
            a.vpternlogq(zmm(t), zmm(half), qword_bcst(rbx + pool_off(keep)), 0xF8)?;
            let dst = if k == k1 {
                zmm(half).k1()
            } else {
                zmm(half).k4()
            };
            a.vmovdqa64(dst, zmm(t))?;
        }
        Ok(())
    }

    /// `_SAT` of a float32 row: clamp to [0, 1], NaN and -0 → +0.
    fn saturate32(&mut self, z: u32) -> A {
        let a = &mut self.a;
        let r = zmm(z);
        a.vcmpps(k2, r, dword_bcst(rbx + pool_off(pool::ZERO)), GT_OQ)?;
        a.vcmpps(k3, r, dword_bcst(rbx + pool_off(pool::ONE)), LT_OQ)?;
        a.vpbroadcastd(zmm(31), dword_ptr(rbx + pool_off(pool::ONE)))?;
        a.vmovdqa32(zmm(31).k3(), r)?;
        a.vmovdqa32(r.k2().z(), zmm(31))
    }

    /// `_SAT` of a double vector.
    fn saturate64(&mut self, z: u32) -> A {
        let a = &mut self.a;
        let r = zmm(z);
        a.vcmppd(k2, r, qword_bcst(rbx + pool_off(pool::D_ZERO)), GT_OQ)?;
        a.vcmppd(k3, r, qword_bcst(rbx + pool_off(pool::D_ONE)), LT_OQ)?;
        a.vpbroadcastq(zmm(31), qword_ptr(rbx + pool_off(pool::D_ONE)))?;
        a.vmovdqa64(zmm(31).k3(), r)?;
        a.vmovdqa64(r.k2().z(), zmm(31))
    }

    /// Calls `f(ctx, arg)` with the count saved and vector state cleared.
    /// Masks and k1 are reloaded afterwards (the callee may change `alive`).
    fn call(&mut self, f: u64, arg: u64) -> A {
        self.masks_out()?;
        let a = &mut self.a;
        a.mov(qword_ptr(rbx + off::EXECUTED), r13)?;
        a.vzeroupper()?;
        a.mov(rdi, rbx)?;
        a.mov(rsi, arg)?;
        a.mov(rax, f)?;
        a.call(rax)?;
        self.masks_in()
    }

    fn instruction(&mut self, i: usize, plan: Plan, depth: usize, frames: &[Frame]) -> R {
        let inst = self.code.insts[i];
        match plan {
            Plan::Flow => self.flow(i, &inst, depth, frames),
            Plan::Call => Ok(self.call_step(i)?),
            Plan::Comp(op, n) => self.comp(&inst, op, n),
            Plan::Scalar(op) => self.scalar(&inst, op),
            Plan::Dot(n) => self.dot(&inst, n),
            Plan::Row(k) => self.row_kernel(i, &inst, k),
            Plan::Special(spec) => self.special(i, &inst, spec),
            Plan::Pair(op, n, both) => self.pair(&inst, op, n, both),
            Plan::Load(n) => self.load(i, &inst, n),
            Plan::Store(n) => self.store_buffer(i, &inst, n),
            Plan::Atomic(n) => self.atomic_buffer(i, &inst, n),
            Plan::Resq(n) => self.buffer_size(i, &inst, n),
            Plan::Tex(slot) => self.tex(i, &inst, slot),
        }
    }

    fn call_step(&mut self, i: usize) -> A {
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        self.call(step_callback as *const () as usize as u64, i as u64)?;
        self.a.test(eax, eax)?;
        self.a.jnz(self.callback_status)?;
        self.a.mov(r12, qword_ptr(rbx + off::REGS))?;
        self.update_exec()
    }

    // ---- flow control ------------------------------------------------------
}

mod alu;
mod cache;
mod calls;
mod exp_log;
mod flow;
mod memory;
mod pair;
mod plan;
mod special;
mod texture;

use special::Special;

use plan::{aligned_pair, plans_of, segment_local, src_inline};
#[cfg(test)]
pub(crate) use plan::{compiled_as, declared_fallback, template_shape};
pub(crate) use plan::{handler_calls, inline_samples};
