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
    MAX_BUFFERS, MAX_CONSTS, SHARED_SLOT, fetch_callback, mask, off, pool, row_callback,
    step_callback,
};
use iced_x86::code_asm::*;
use iced_x86::{IcedError, Register};
use tgsi_exec::decode::{Code, DstKind, Inst, MAX_DEPTH, Modifier, Resource, Src, SrcKind};
use tgsi_exec::machine::Env;
use tgsi_ir::enums::Processor;
use tgsi_ir::opcode::{Category, Opcode, OperandType};

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
    /// A replicated scalar through a row kernel.
    Row(RowKernel),
    /// A 64-bit pair op, inline: (op, sources, both halves of the writemask needed).
    Pair(Op64, usize, bool),
    /// The interpreter's handler for this one instruction.
    Call,
    /// LOAD / STORE of `BUFFER[n]` (or of the shared memory, entry
    /// [`SHARED_SLOT`]): inline when every active address is word-aligned
    /// (STORE: and the lanes' words cannot overlap), else the interpreter's
    /// handler.
    Load(u32),
    Store(u32),
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
    /// 32-bit bitwise ops whose channels line up with 64-bit pairs, done on
    /// a pair held as 64-bit lanes (the same bits, no split and rejoin).
    Mov64,
    Not64,
    And64,
    Or64,
    Xor64,
}

// vcmpps predicates
const EQ_OQ: i32 = 0x00;
const LT_OQ: i32 = 0x11;
const LE_OQ: i32 = 0x12;
const NEQ_UQ: i32 = 0x04;
const GE_OQ: i32 = 0x1D;
const GT_OQ: i32 = 0x1E;
const UNORD_Q: i32 = 0x03;
const NLT_UQ: i32 = 0x05;
// vpcmpd predicates
const P_EQ: i32 = 0;
const P_LT: i32 = 1;
const P_NE: i32 = 4;
const P_GE: i32 = 5;

/// Categories of the opcode table the compiled engine never inlines: their
/// instructions run through the interpreter's handler (LOAD and STORE of a
/// buffer are inlined when their addresses allow, see [`Plan::Load`]).
const CALLED_CATEGORIES: &[Category] = &[
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
const CALLED_OPCODES: &[Opcode] = &[
    Opcode::ARL,
    Opcode::LIT,
    Opcode::EXP,
    Opcode::LOG,
    Opcode::DP3,
    Opcode::DP4,
    Opcode::DST,
    Opcode::MIN,
    Opcode::MAX,
    Opcode::LRP,
    Opcode::FMA,
    Opcode::LDEXP,
    Opcode::F2U64,
    Opcode::F2I64,
    Opcode::U2I64,
    Opcode::CLOCK,
    Opcode::I2I64,
    Opcode::PK2H,
    Opcode::PK2US,
    Opcode::PK4B,
    Opcode::PK4UB,
    Opcode::D2U64,
    Opcode::D2I64,
    Opcode::U642D,
    Opcode::UP2H,
    Opcode::UP2US,
    Opcode::UP4B,
    Opcode::UP4UB,
    Opcode::U642F,
    Opcode::I642F,
    Opcode::ARR,
    Opcode::I642D,
    Opcode::SSG,
    Opcode::DP2,
    Opcode::MOD,
    Opcode::DFMA,
    Opcode::F2I,
    Opcode::IDIV,
    Opcode::F2U,
    Opcode::UDIV,
    Opcode::UMOD,
    Opcode::ISSG,
    Opcode::IMUL_HI,
    Opcode::UMUL_HI,
    Opcode::IBFE,
    Opcode::UBFE,
    Opcode::BFI,
    Opcode::BREV,
    Opcode::POPC,
    Opcode::LSB,
    Opcode::IMSB,
    Opcode::UMSB,
    Opcode::F2D,
    Opcode::D2F,
    Opcode::DMAX,
    Opcode::DMIN,
    Opcode::DSLT,
    Opcode::DSGE,
    Opcode::DSEQ,
    Opcode::DSNE,
    Opcode::DRCP,
    Opcode::DSQRT,
    Opcode::DFRAC,
    Opcode::DLDEXP,
    Opcode::DFRACEXP,
    Opcode::D2I,
    Opcode::I2D,
    Opcode::D2U,
    Opcode::U2D,
    Opcode::DRSQ,
    Opcode::DTRUNC,
    Opcode::DCEIL,
    Opcode::DFLR,
    Opcode::DROUND,
    Opcode::DSSG,
    Opcode::U64SEQ,
    Opcode::U64SNE,
    Opcode::I64SLT,
    Opcode::U64SLT,
    Opcode::I64SGE,
    Opcode::U64SGE,
    Opcode::I64MIN,
    Opcode::U64MIN,
    Opcode::I64MAX,
    Opcode::U64MAX,
    Opcode::I64ABS,
    Opcode::I64SSG,
    Opcode::I64DIV,
    Opcode::U64DIV,
    Opcode::I64MOD,
    Opcode::U64MOD,
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
    match plan_of(op) {
        Plan::Comp(..) | Plan::Scalar(_) | Plan::Pair(..) => "template",
        Plan::Row(RowKernel::Sin | RowKernel::Cos) => "template",
        Plan::Row(_) => "row kernel",
        Plan::Flow => "flow",
        Plan::Call | Plan::Load(_) | Plan::Store(_) => "handler",
    }
}

/// The kind (`'c'` per component, `'s'` replicated scalar, `'p'` 64-bit
/// pairs) and source count of `op`'s template, for the check against the
/// machine's semantics table; `None` without a template.
#[cfg(test)]
pub(crate) fn template_shape(op: Opcode) -> Option<(char, usize)> {
    match plan_of(op) {
        Plan::Comp(_, n) => Some(('c', n)),
        Plan::Scalar(_) | Plan::Row(RowKernel::Sin | RowKernel::Cos) => Some(('s', 1)),
        Plan::Pair(_, n, _) => Some(('p', n)),
        _ => None,
    }
}

fn plan_of(op: Opcode) -> Plan {
    use Op32::*;
    use Op64::*;
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
        O::U64SHR => Plan::Pair(U64shr, 2, false),
        O::I64SHR => Plan::Pair(I64shr, 2, false),
        _ => match RowKernel::of(op) {
            Some(k) => Plan::Row(k),
            None => {
                debug_assert!(declared_fallback(op), "{op} has no declared fallback");
                Plan::Call
            }
        },
    }
}

/// The output of [`emit`].
pub(super) struct Output {
    pub bytes: Vec<u8>,
    pub consts: Vec<ConstRef>,
    pub inlined: usize,
    pub called: usize,
    /// Loops whose rows stay in vector registers.
    pub cached_loops: usize,
    /// The deepest static nesting of control-flow frames.
    pub depth: usize,
}

/// A static control-flow frame: its kind and its slot (nesting depth).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Frame {
    If,
    Loop,
    Switch,
}

fn zmm(n: u32) -> AsmRegisterZmm {
    get_zmm(Register::ZMM0 + n).expect("zmm register number below 32")
}

fn ymm(n: u32) -> AsmRegisterYmm {
    get_ymm(Register::YMM0 + n).expect("ymm register number below 32")
}

/// What a cache register holds during a loop: a register row or a constant word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Row(u32, u8),
    Const(usize),
    /// Register `reg`'s channels `2q, 2q+1` as 64-bit lanes: lanes 0..8 in
    /// the slot's register, 8..16 in the next one (one register when the
    /// register is an immediate: both halves are the same).
    Pair(u32, u8),
}

/// An innermost loop whose most used rows and constants stay in vector
/// registers from its BGNLOOP to its ENDLOOP (loaded on entry, written back
/// on exit and around calls).
#[derive(Clone, Debug)]
struct Region {
    end: usize,
    /// (what, first zmm register, written in the loop, uniform pair)
    slots: Vec<Slot>,
}

/// A loop cache entry.
#[derive(Clone, Copy, Debug)]
struct Slot {
    key: Key,
    z: u32,
    written: bool,
    /// A pair whose two halves are the same register (immediates).
    uniform: bool,
}

impl Slot {
    /// The registers of the low and high 8 lanes of a pair.
    fn halves(&self) -> (u32, u32) {
        if self.uniform {
            (self.z, self.z)
        } else {
            (self.z, self.z + 1)
        }
    }
}

/// zmm registers for loop caches (the templates use zmm0..15 and zmm31).
const CACHE_REGS: std::ops::Range<u32> = 16..31;

struct Emitter<'c> {
    a: CodeAssembler,
    code: &'c Code,
    consts: Vec<ConstRef>,
    /// Loop caches by BGNLOOP index, and the one being emitted.
    regions: Vec<Option<Region>>,
    active: Option<Region>,
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
}

/// Per TEMP register and channel: true when every read of it is preceded, in
/// the same straight segment (no flow control or interpreter call between,
/// so the same exec mask), by a write of it. Then the value a write leaves
/// in the lanes outside the exec mask is never read, and a template may
/// write every lane (no merge with the old value, so no wait for the last
/// instruction that wrote the register). None in the fragment stage (lanes
/// outside the mask are read by derivatives) or with indirect register
/// operands; a register an interpreter call reads has none.
fn segment_local(code: &Code, plans: &[Plan]) -> Vec<[bool; 4]> {
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
                    local[t][c as usize] &= written[t][c as usize] && *plan != Plan::Call;
                }
            }
        }
        if matches!(plan, Plan::Flow | Plan::Call) {
            written.iter_mut().for_each(|w| *w = [false; 4]);
            continue;
        }
        for d in &inst.dst {
            if let DstKind::Reg(r) = d.kind
                && let Some(t) = index(r)
            {
                for c in (0..4).filter(|c| d.mask & (1 << c) != 0) {
                    written[t][c] = true;
                }
            }
        }
    }
    local
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

/// Pairs selected by a writemask: both bits (`both`) or either bit.
fn pairs_of(mask: u8, both: bool) -> [bool; 2] {
    if both {
        [mask & 3 == 3, mask & 12 == 12]
    } else {
        [mask & 3 != 0, mask & 12 != 0]
    }
}

/// The register pair `q` a 64-bit source's pair `p` reads whole and in
/// order (channels `2q, 2q+1`), if it does.
fn aligned_pair(s: &Src, p: usize) -> Option<u8> {
    let (a, b) = (s.swz[2 * p] & 3, s.swz[2 * p + 1] & 3);
    (a % 2 == 0 && b == a + 1).then_some(a / 2)
}

/// True when a source is read inline: a direct register or constant, with
/// float sign-bit modifiers at most (`wide`: double sign-bit modifiers).
fn src_inline(s: &Src, wide: bool) -> bool {
    if s.flush && wide {
        return false;
    }
    let kind_ok = matches!(
        s.kind,
        SrcKind::Reg(_) | SrcKind::Const { .. } | SrcKind::None
    );
    let mod_ok = match s.modifier {
        Modifier::None => true,
        Modifier::Apply { ty, .. } => {
            if wide {
                ty == OperandType::Double
            } else {
                matches!(ty, OperandType::Float | OperandType::Untyped)
            }
        }
    };
    kind_ok && mod_ok
}

/// True when the instruction's operands allow its inline template.
fn operands_inline(inst: &Inst, plan: Plan) -> bool {
    let flush_ok = matches!(plan, Plan::Comp(..) | Plan::Scalar(_) | Plan::Row(_));
    if (inst.flush && !flush_ok) || inst.dst[1].kind != DstKind::Null {
        return false;
    }
    if !matches!(inst.dst[0].kind, DstKind::Reg(_) | DstKind::Null) {
        return false;
    }
    match plan {
        Plan::Comp(_, n) => inst.src[..n].iter().all(|s| src_inline(s, false)),
        Plan::Scalar(_) => src_inline(&inst.src[0], false),
        Plan::Row(k) => {
            src_inline(&inst.src[0], false)
                && (k != RowKernel::Pow || src_inline(&inst.src[1], false))
        }
        Plan::Pair(op, n, _) => {
            let shift = matches!(op, Op64::U64shl | Op64::U64shr | Op64::I64shr);
            inst.src[..n]
                .iter()
                .enumerate()
                .all(|(k, s)| src_inline(s, !(shift && k == 1)))
        }
        Plan::Flow | Plan::Call | Plan::Load(_) | Plan::Store(_) => true,
    }
}

/// LOAD/STORE of a buffer with inline operands (STORE: not in the fragment
/// stage, whose helper lanes must not write).
fn memory_plan(code: &Code, inst: &Inst) -> Option<Plan> {
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
        _ => None,
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
    for (i, inst) in code.insts.iter().enumerate() {
        let mut plan = plan_of(inst.op);
        if plan != Plan::Flow && plan != Plan::Call && !operands_inline(inst, plan) {
            plan = Plan::Call;
        }
        if let Some(p) = memory_plan(code, inst) {
            plan = p;
        }
        depth_at.push(stack.len());
        stacks.push(stack.clone());
        match inst.op {
            Opcode::CAL => return refuse(i, inst, "subroutine calls run in the interpreter"),
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
        if matches!(p, Plan::Call | Plan::Load(_) | Plan::Store(_)) {
            leader[i + 1] = true;
        }
    }
    let mut e = Emitter::new(code, &plans)?;
    for b in 0..n {
        if code.insts[b].op == Opcode::BGNLOOP {
            e.regions[b] = e.region(b, &plans);
        }
    }
    e.prologue()?;
    let mut stubs: Vec<(CodeLabel, usize, usize)> = Vec::new();
    for i in 0..n {
        let l = e.labels[i];
        place(&mut e.a, l)?;
        if leader[i] {
            let len = (i + 1..=n).find(|&j| leader[j]).unwrap_or(n) - i;
            let stub = e.a.create_label();
            e.count(len as i32, stub)?;
            stubs.push((stub, i, len));
        }
        e.instruction(i, plans[i], depth_at[i], &stacks[i])
            .map_err(|err| {
                EmitError(format!("instruction {i} ({}): {}", code.insts[i].op, err.0))
            })?;
    }
    e.finish(&stubs)?;
    let inlined = plans.iter().filter(|p| **p != Plan::Call).count();
    let cached_loops = e.regions.iter().flatten().count();
    let bytes = e.a.assemble(0)?;
    Ok(Output {
        bytes,
        consts: e.consts,
        inlined,
        called: n - inlined,
        cached_loops,
        depth: depth_at.iter().copied().max().unwrap_or(0) + 1,
    })
}

impl<'c> Emitter<'c> {
    /// The register cache of the loop starting at `b`, when it is an
    /// innermost loop of inline instructions (row kernels allowed) and plain
    /// IF/UIF/ELSE/ENDIF/BRK/CONT.
    fn region(&mut self, b: usize, plans: &[Plan]) -> Option<Region> {
        let end = self.code.insts[b].target as usize;
        // (key, uses, written)
        let mut uses: Vec<(Key, u32, bool)> = Vec::new();
        fn note(uses: &mut Vec<(Key, u32, bool)>, k: Key, write: bool) {
            match uses.iter_mut().find(|(u, _, _)| *u == k) {
                Some(u) => {
                    u.1 += 1;
                    u.2 |= write;
                }
                None => uses.push((k, 1, write)),
            }
        }
        for i in b + 1..end {
            let inst = self.code.insts[i];
            let m = inst.dst[0].mask;
            let dst = match inst.dst[0].kind {
                DstKind::Reg(r) => Some(r),
                _ => None,
            };
            let mut reads: Vec<(usize, usize)> = Vec::new(); // (source, channel)
            let mut writes: Vec<usize> = Vec::new();
            match plans[i] {
                Plan::Flow => match inst.op {
                    Opcode::IF | Opcode::UIF => {
                        if !src_inline(&inst.src[0], false) {
                            return None;
                        }
                        reads.push((0, 0));
                    }
                    Opcode::ELSE | Opcode::ENDIF | Opcode::BRK | Opcode::CONT | Opcode::NOP => {}
                    _ => return None,
                },
                Plan::Call | Plan::Load(_) | Plan::Store(_) => return None,
                Plan::Comp(_, n) => {
                    for c in (0..4).filter(|c| m & (1 << c) != 0) {
                        reads.extend((0..n).map(|k| (k, c)));
                        writes.push(c);
                    }
                }
                Plan::Scalar(_) | Plan::Row(_) => {
                    reads.push((0, 0));
                    if plans[i] == Plan::Row(RowKernel::Pow) {
                        reads.push((1, 0));
                    }
                    writes.extend((0..4).filter(|c| m & (1 << c) != 0));
                }
                Plan::Pair(op, n, both) => {
                    let shift = matches!(op, Op64::U64shl | Op64::U64shr | Op64::I64shr);
                    for p in pairs_of(m, both)
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| **s)
                        .map(|(p, _)| p)
                    {
                        let srcs = if shift { 1 } else { n };
                        for k in 0..srcs {
                            let src = inst.src[k];
                            match (src.kind, aligned_pair(&src, p)) {
                                (SrcKind::Reg(r), Some(q)) => {
                                    note(&mut uses, Key::Pair(r, q), false)
                                }
                                _ => reads.extend([(k, 2 * p), (k, 2 * p + 1)]),
                            }
                        }
                        if shift {
                            reads.push((1, p));
                        }
                        if let Some(r) = dst {
                            note(&mut uses, Key::Pair(r, p as u8), true);
                        }
                    }
                }
            }
            for (k, c) in reads {
                if let Some(key) = self.key_of(&inst.src[k], c) {
                    note(&mut uses, key, false);
                }
            }
            if let Some(r) = dst {
                for c in writes {
                    note(&mut uses, Key::Row(r, c as u8), true);
                }
            }
        }
        // rows of a pair used as 64-bit lanes live in the pair's entry
        let pairs: Vec<(u32, u8)> = uses
            .iter()
            .filter_map(|(k, _, _)| match k {
                Key::Pair(r, q) => Some((*r, *q)),
                _ => None,
            })
            .collect();
        let mut merged: Vec<(Key, u32, bool)> = Vec::new();
        for (k, n, w) in uses {
            let owner = match k {
                Key::Row(r, c) if pairs.contains(&(r, c / 2)) => Key::Pair(r, c / 2),
                k => k,
            };
            note(&mut merged, owner, w);
            if let Some(e) = merged.iter_mut().find(|(u, _, _)| *u == owner) {
                e.1 += n - 1;
            }
        }
        // the most used first (stable: first use wins ties)
        merged.sort_by_key(|e| std::cmp::Reverse(e.1));
        let imm = self.code.imm;
        let mut next = CACHE_REGS.start;
        let mut slots = Vec::new();
        for (key, _, written) in merged {
            let uniform = matches!(key, Key::Pair(r, _) if r >= imm.base && r < imm.base + imm.len);
            let need = if matches!(key, Key::Pair(..)) && !uniform {
                2
            } else {
                1
            };
            if next + need > CACHE_REGS.end {
                continue;
            }
            slots.push(Slot {
                key,
                z: next,
                written,
                uniform,
            });
            next += need;
        }
        // a pair that did not fit: its rows are read and written in memory
        Some(Region { end, slots })
    }

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
            active: None,
            labels,
            end,
            error,
            budget,
            callback_status,
            suspend,
            local: segment_local(code, plans),
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
        a.ret()
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

    /// The cache register holding `key` in the loop being emitted.
    fn cached(&self, key: Key) -> Option<u32> {
        self.slot(key).map(|s| s.z)
    }

    fn slot(&self, key: Key) -> Option<Slot> {
        self.active
            .as_ref()
            .and_then(|r| r.slots.iter().find(|s| s.key == key))
            .copied()
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
        let modified = matches!(s.modifier, Modifier::Apply { abs, neg, .. } if (abs || neg) && (!wide || c % 2 == 1));
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
                (SrcKind::None, _) => self.a.vpxord(r, r, r)?,
                _ => return Err("indirect operand in an inline template".into()),
            },
        }
        // as the interpreter's fetch: denormals flushed, then the modifiers
        if s.flush && !wide {
            self.flush32(z)?;
        }
        if let Modifier::Apply { abs, neg, .. } = s.modifier
            && (!wide || c % 2 == 1)
        {
            if abs {
                self.a.vpandd(r, r, dword_bcst(rbx + pool_off(pool::ABS)))?;
            }
            if neg {
                self.a
                    .vpxord(r, r, dword_bcst(rbx + pool_off(pool::SIGN)))?;
            }
        }
        Ok(z)
    }

    /// Loads every cache register of the active loop from the register file.
    fn cache_load(&mut self) -> A {
        let Some(r) = self.active.clone() else {
            return Ok(());
        };
        for sl in r.slots {
            let z = zmm(sl.z);
            match sl.key {
                Key::Row(reg, chan) => {
                    self.a.vmovdqu32(z, zmmword_ptr(r12 + row_off(reg, chan)))?
                }
                Key::Const(k) => self.a.vpbroadcastd(z, dword_ptr(r14 + (4 * k) as i32))?,
                Key::Pair(reg, q) => {
                    let a = &mut self.a;
                    a.vmovdqu32(zmm(14), zmmword_ptr(r12 + row_off(reg, 2 * q)))?;
                    a.vmovdqu32(zmm(15), zmmword_ptr(r12 + row_off(reg, 2 * q + 1)))?;
                    let (lo, hi) = sl.halves();
                    a.vmovdqu32(zmm(lo), zmmword_ptr(rbx + off::PERM))?;
                    a.vpermi2d(zmm(lo), zmm(14), zmm(15))?;
                    if hi != lo {
                        a.vmovdqu32(zmm(hi), zmmword_ptr(rbx + off::PERM + 64))?;
                        a.vpermi2d(zmm(hi), zmm(14), zmm(15))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the rows the active loop writes back to the register file.
    fn cache_store(&mut self) -> A {
        let Some(r) = self.active.clone() else {
            return Ok(());
        };
        for sl in r.slots {
            if !sl.written {
                continue;
            }
            match sl.key {
                Key::Row(reg, chan) => self
                    .a
                    .vmovdqu32(zmmword_ptr(r12 + row_off(reg, chan)), zmm(sl.z))?,
                Key::Pair(reg, q) => {
                    let (lo, hi) = sl.halves();
                    for h in 0..2u8 {
                        let a = &mut self.a;
                        a.vmovdqu32(zmm(14), zmmword_ptr(rbx + off::PERM + 128 + 64 * h as i32))?;
                        a.vpermi2d(zmm(14), zmm(lo), zmm(hi))?;
                        a.vmovdqu32(zmmword_ptr(r12 + row_off(reg, 2 * q + h)), zmm(14))?;
                    }
                }
                Key::Const(_) => {}
            }
        }
        Ok(())
    }

    /// Stores zmm `z` to channel `c` of a direct destination for the active lanes.
    fn store(&mut self, inst: &Inst, c: usize, z: u32) -> A {
        if let DstKind::Reg(reg) = inst.dst[0].kind {
            if let Some(ps) = self.slot(Key::Pair(reg, c as u8 / 2)) {
                return self.store_into_pair(ps, c % 2, z);
            }
            match self.cached(Key::Row(reg, c as u8)) {
                Some(cz) => self.a.vmovdqa32(zmm(cz).k1(), zmm(z))?,
                None => self
                    .a
                    .vmovdqu32(zmmword_ptr(r12 + row_off(reg, c as u8)).k1(), zmm(z))?,
            }
        }
        Ok(())
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
            Plan::Row(k) => self.row_kernel(i, &inst, k),
            Plan::Pair(op, n, both) => self.pair(&inst, op, n, both),
            Plan::Load(n) => self.load(i, &inst, n),
            Plan::Store(n) => self.store_buffer(i, &inst, n),
        }
    }

    /// The fast path's entry checks: the buffer usable inline and every
    /// active address (zmm4) word-aligned; else `slow`. Leaves the words' address in rax and the
    /// last valid word address, broadcast, in zmm6.
    fn memory_entry(&mut self, n: u32, slow: CodeLabel) -> A {
        let slot = off::BUFFERS + 16 * n as i32;
        let a = &mut self.a;
        a.vptestmd(k2.k1(), zmm(4), dword_bcst(rbx + pool_off(pool::MASK3)))?;
        a.kortestw(k2, k2)?;
        a.jnz(slow)?;
        a.cmp(dword_ptr(rbx + slot + 12), 0)?;
        a.je(slow)?;
        a.mov(rax, qword_ptr(rbx + slot))?;
        a.vpbroadcastd(zmm(6), dword_ptr(rbx + slot + 8))
    }

    /// k3 = active lanes whose word at zmm4 + `4 * s` is inside the buffer
    /// (the address in zmm7 when `s > 0`, else zmm4). Returns the address register.
    fn memory_lanes(&mut self, s: u8) -> Result<u32, IcedError> {
        let a = &mut self.a;
        let addr = if s == 0 {
            4
        } else {
            let k = [pool::FOUR, pool::EIGHT, pool::TWELVE][s as usize - 1];
            a.vpaddd(zmm(7), zmm(4), dword_bcst(rbx + pool_off(k)))?;
            7
        };
        // inside: addr <= last; no wrap: addr >= base address
        a.vpcmpud(k3.k1(), zmm(addr), zmm(6), 2)?;
        if s > 0 {
            a.vpcmpud(k3.k3(), zmm(addr), zmm(4), 5)?;
        }
        Ok(addr)
    }

    fn load(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        let (slow, done) = (self.a.create_label(), self.a.create_label());
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        let x = self.fetch(4, &inst.src[1], 0, false)?;
        if x != 4 {
            self.a.vmovdqa32(zmm(4), zmm(x))?;
        }
        self.memory_entry(n, slow)?;
        let m = inst.dst[0].mask;
        let swz = inst.src[0].swz;
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            let addr = self.memory_lanes(swz[c] & 3)?;
            let r = zmm(c as u32);
            self.a.vpxord(r, r, r)?;
            self.a.vpgatherdd(r.k3(), ptr(rax + zmm(addr)))?;
        }
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            self.store(inst, c, c as u32)?;
        }
        self.a.jmp(done)?;
        place(&mut self.a, slow)?;
        self.call_step(i)?;
        place(&mut self.a, done)?;
        Ok(())
    }

    fn store_buffer(&mut self, i: usize, inst: &Inst, n: u32) -> R {
        let (slow, done) = (self.a.create_label(), self.a.create_label());
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        if x != 4 {
            self.a.vmovdqa32(zmm(4), zmm(x))?;
        }
        self.memory_entry(n, slow)?;
        let m = inst.dst[0].mask;
        // The lanes' words must not overlap (then the lane order the
        // interpreter writes in cannot matter): the active lanes' word
        // addresses, in lane order, must grow by more than the span of
        // the written channels.
        let (lo, hi) = (m.trailing_zeros() as i32, 7 - m.leading_zeros() as i32);
        let gap = hi - lo + 1;
        {
            let a = &mut self.a;
            a.vpsrld(zmm(5), zmm(4), 2)?;
            a.vpcompressd(zmm(8).k1().z(), zmm(5))?;
            a.valignd(zmm(9), zmm(8), zmm(8), 1)?;
            a.vpaddd(
                zmm(10),
                zmm(8),
                dword_bcst(rbx + pool_off(pool::INT1 + gap - 1)),
            )?;
            a.vpcmpud(k2, zmm(9), zmm(10), 5)?; // next >= this + gap
            a.vpcmpud(k3, zmm(10), zmm(8), 5)?; // this + gap did not wrap
            a.kandw(k2, k2, k3)?;
            // lanes 0..count-1 of the packed addresses must pass
            a.popcnt(ecx, ebp)?;
            a.dec(ecx)?;
            a.mov(edx, 1)?;
            a.shlx(edx, edx, ecx)?;
            a.dec(edx)?;
            a.kmovw(k3, edx)?;
            a.kandnw(k3, k2, k3)?;
            a.kortestw(k3, k3)?;
            a.jnz(slow)?;
        }
        // every value is read before the first write
        let mut vals = [0u32; 4];
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            vals[c] = self.fetch(12 + c as u32, &inst.src[1], c, false)?;
        }
        for c in (0..4).filter(|c| m & (1 << c) != 0) {
            let addr = self.memory_lanes(c as u8)?;
            self.a
                .vpscatterdd(ptr(rax + zmm(addr)).k3(), zmm(vals[c]))?;
        }
        self.a.jmp(done)?;
        place(&mut self.a, slow)?;
        self.call_step(i)?;
        place(&mut self.a, done)?;
        Ok(())
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

    fn comp(&mut self, inst: &Inst, op: Op32, n: usize) -> R {
        if let Some(wide) = self.bitwise_on_pairs(inst, op, n) {
            return self.pair(inst, wide, n, true);
        }
        let m = inst.dst[0].mask;
        for c in 0..4 {
            if m & (1 << c) == 0 {
                continue;
            }
            let mut regs = [4, 5, 6];
            for k in 0..n {
                regs[k] = self.fetch(4 + k as u32, &inst.src[k], c, false)?;
            }
            self.op32(op, c as u32, regs)?;
        }
        Ok(self.finish32(inst, |c| c as u32)?)
    }

    /// The 64-bit form of a bitwise op whose destination pairs the loop
    /// cache holds as 64-bit lanes, when its channels line up with those
    /// pairs (whole pairs written, no saturation, no source modifiers):
    /// XOR of two `.xy` pairs into a `.xy` pair is one XOR of 64-bit lanes.
    fn bitwise_on_pairs(&self, inst: &Inst, op: Op32, n: usize) -> Option<Op64> {
        let wide = match op {
            Op32::Mov => Op64::Mov64,
            Op32::Not => Op64::Not64,
            Op32::And => Op64::And64,
            Op32::Or => Op64::Or64,
            Op32::Xor => Op64::Xor64,
            _ => return None,
        };
        let m = inst.dst[0].mask;
        let DstKind::Reg(r) = inst.dst[0].kind else {
            return None;
        };
        let whole = [m & 3, m & 12]
            .iter()
            .zip([3, 12])
            .all(|(&h, f)| h == 0 || h == f);
        let unmodified = inst.src[..n]
            .iter()
            .all(|s| matches!(s.modifier, Modifier::None));
        let cached = (0..2)
            .filter(|&p| m & (3 << (2 * p)) != 0)
            .all(|p| self.slot(Key::Pair(r, p as u8)).is_some());
        (whole && unmodified && cached && !inst.saturate && m != 0).then_some(wide)
    }

    /// The compile-time value of channel `c` of an unmodified immediate source.
    fn immediate_word(&self, s: &Src, c: usize) -> Option<u32> {
        let imm = self.code.imm;
        match (s.kind, s.modifier) {
            (SrcKind::Reg(r), Modifier::None) if r >= imm.base && r < imm.base + imm.len => self
                .code
                .imm_words
                .get((r - imm.base) as usize)
                .map(|w| w[(s.swz[c] & 3) as usize]),
            _ => None,
        }
    }

    /// Saturates and stores the result rows (`zreg(c)` holds channel c).
    fn finish32(&mut self, inst: &Inst, zreg: impl Fn(usize) -> u32) -> A {
        let m = inst.dst[0].mask;
        for c in 0..4 {
            if m & (1 << c) != 0 {
                let mut z = zreg(c);
                if inst.flush {
                    if z != c as u32 {
                        self.a.vmovdqa32(zmm(c as u32), zmm(z))?;
                        z = c as u32;
                    }
                    self.flush32(z)?;
                }
                if inst.saturate && z == c as u32 {
                    self.saturate32(z)?;
                }
                self.store(inst, c, z)?;
            }
        }
        Ok(())
    }

    /// Float32 denormals of zmm `z` to the zero of their sign (Direct3D's
    /// rule, `ops::flush_denormal`): lanes whose exponent field is 0 keep
    /// only their sign bit.
    fn flush32(&mut self, z: u32) -> A {
        let a = &mut self.a;
        a.vptestnmd(k7, zmm(z), dword_bcst(rbx + pool_off(pool::EXP)))?;
        a.vpandd(zmm(z).k7(), zmm(z), dword_bcst(rbx + pool_off(pool::SIGN)))
    }

    /// `zmm(d) = op(zmm(src[0]), zmm(src[1]), zmm(src[2]))`; sources are never written.
    fn op32(&mut self, op: Op32, d: u32, src: [u32; 3]) -> A {
        let a = &mut self.a;
        let (x, y, z, o) = (zmm(src[0]), zmm(src[1]), zmm(src[2]), zmm(d));
        let bc = |p: i32| dword_bcst(rbx + pool_off(p));
        match op {
            Op32::Mov => a.vmovdqa32(o, x),
            Op32::Frc => {
                a.vrndscaleps(zmm(7), x, 1)?;
                a.vsubps(o, x, zmm(7))
            }
            Op32::Round(mode) => {
                // NaN keeps its bits (the interpreter's rounding does not quiet it)
                a.vrndscaleps(o, x, mode)?;
                a.vcmpps(k2, x, x, UNORD_Q)?;
                a.vmovdqa32(o.k2(), x)
            }
            Op32::I2f => a.vcvtdq2ps(o, x),
            Op32::U2f => a.vcvtudq2ps(o, x),
            Op32::Not => a.vpternlogd(o, x, x, 0x55),
            Op32::Ineg => {
                a.vpxord(o, o, o)?;
                a.vpsubd(o, o, x)
            }
            Op32::Iabs => a.vpabsd(o, x),
            Op32::Add => a.vaddps(o, x, y),
            Op32::Mul => a.vmulps(o, x, y),
            Op32::Div => a.vdivps(o, x, y),
            Op32::Shl | Op32::Ishr | Op32::Ushr => {
                let n = zmm(7);
                a.vpandd(n, y, bc(pool::MASK31))?;
                match op {
                    Op32::Shl => a.vpsllvd(o, x, n),
                    Op32::Ishr => a.vpsravd(o, x, n),
                    _ => a.vpsrlvd(o, x, n),
                }
            }
            Op32::And => a.vpandd(o, x, y),
            Op32::Or => a.vpord(o, x, y),
            Op32::Xor => a.vpxord(o, x, y),
            Op32::Uadd => a.vpaddd(o, x, y),
            Op32::Umul => a.vpmulld(o, x, y),
            Op32::Imax => a.vpmaxsd(o, x, y),
            Op32::Imin => a.vpminsd(o, x, y),
            Op32::Umax => a.vpmaxud(o, x, y),
            Op32::Umin => a.vpminud(o, x, y),
            Op32::ICmp(signed, p) => {
                if signed {
                    a.vpcmpd(k2, x, y, p)?;
                } else {
                    a.vpcmpud(k2, x, y, p)?;
                }
                a.vpmovm2d(o, k2)
            }
            Op32::FCmp(p) => {
                a.vcmpps(k2, x, y, p)?;
                a.vpmovm2d(o, k2)
            }
            Op32::SCmp(p) => {
                a.vcmpps(k2, x, y, p)?;
                a.vpmovm2d(o, k2)?;
                a.vpandd(o, o, bc(pool::ONE))
            }
            Op32::Mad => {
                a.vmulps(zmm(7), x, y)?;
                a.vaddps(o, zmm(7), z)
            }
            Op32::Umad => {
                a.vpmulld(zmm(7), x, y)?;
                a.vpaddd(o, zmm(7), z)
            }
            Op32::Ucmp => {
                a.vptestmd(k2, x, x)?;
                a.vmovdqa32(o, z)?;
                a.vmovdqa32(o.k2(), y)
            }
            Op32::Cmp => {
                a.vcmpps(k2, x, bc(pool::ZERO), LT_OQ)?;
                a.vmovdqa32(o, z)?;
                a.vmovdqa32(o.k2(), y)
            }
            Op32::Rcp => {
                a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vdivps(o, zmm(7), x)
            }
            Op32::Sqrt => a.vsqrtps(o, x),
            Op32::Rsq => {
                a.vsqrtps(zmm(8), x)?;
                a.vpbroadcastd(zmm(7), dword_ptr(rbx + pool_off(pool::ONE)))?;
                a.vdivps(o, zmm(7), zmm(8))
            }
        }
    }

    fn scalar(&mut self, inst: &Inst, op: Op32) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        self.op32(op, 0, [x, 5, 6])?;
        Ok(self.replicate(inst)?)
    }

    /// Stores zmm0 (denormals flushed and saturated when asked) to every
    /// enabled channel.
    fn replicate(&mut self, inst: &Inst) -> A {
        if inst.flush {
            self.flush32(0)?;
        }
        if inst.saturate {
            self.saturate32(0)?;
        }
        for c in 0..4 {
            if inst.dst[0].mask & (1 << c) != 0 {
                self.store(inst, c, 0)?;
            }
        }
        Ok(())
    }

    fn row_kernel(&mut self, i: usize, inst: &Inst, k: RowKernel) -> R {
        if matches!(k, RowKernel::Sin | RowKernel::Cos) {
            return self.trig(inst, k);
        }
        let next = self.labels[i + 1];
        self.a.kortestw(k1, k1)?;
        self.a.jz(next)?;
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        self.a.vmovdqu32(zmmword_ptr(rbx + off::SCRATCH), zmm(x))?;
        if k == RowKernel::Pow {
            let y = self.fetch(5, &inst.src[1], 0, false)?;
            self.a
                .vmovdqu32(zmmword_ptr(rbx + off::SCRATCH + 64), zmm(y))?;
        }
        self.cache_store()?;
        self.call(row_callback as *const () as usize as u64, k as u64)?;
        self.cache_load()?;
        self.a
            .vmovdqu32(zmm(0), zmmword_ptr(rbx + off::SCRATCH + 128))?;
        Ok(self.replicate(inst)?)
    }

    /// SIN/COS inline: `math::trig_near`'s steps, one for one, on 16 lanes
    /// (the same operations in the same order, so the same bits), and the
    /// row kernel through the interpreter's path when an active lane is
    /// beyond that path (|x| ≥ 1024, ±inf, NaN).
    fn trig(&mut self, inst: &Inst, k: RowKernel) -> R {
        let x = self.fetch(4, &inst.src[0], 0, false)?;
        use pool::trig as w;
        let phase = i32::from(k == RowKernel::Cos);
        let c = |w: i32| dword_bcst(rbx + pool_off(pool::TRIG + w));
        let (magic, two_over_pi, p1) = (c(w::MAGIC + phase), c(w::TWO_OVER_PI), c(w::P1));
        let (two_d1, two_d2, neg_half, two) =
            (c(w::TWO_D1), c(w::TWO_D2), c(w::NEG_HALF), c(w::TWO));
        let (sin_coef, cos_coef, limit) = (w::SIN_COEF, w::COS_COEF, c(w::LIMIT));
        let [t, q, r1, w2, hi, lo2, z, p, cq, zz, one, xabs] =
            [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13].map(zmm);
        let a = &mut self.a;
        // t = x·(2/π) + magic (the quadrant in its low bits), q = t − magic
        a.vbroadcastss(t, dword_ptr(rbx + pool_off(pool::TRIG + w::MAGIC + phase)))?;
        a.vfmadd231ps(t, zmm(x), two_over_pi)?;
        a.vsubps(q, t, magic)?;
        // r1 = x − q·P1 (exact), w2 = 2·q·D1 (exact), hi = r1 − w2/2
        a.vmovaps(r1, zmm(x))?;
        a.vfnmadd231ps(r1, q, p1)?;
        a.vmulps(w2, q, two_d1)?;
        a.vmovaps(hi, r1)?;
        a.vfmadd231ps(hi, w2, neg_half)?;
        // lo2 = −2·lo by Fast2Sum, then + 2·q·D2
        a.vsubps(lo2, hi, r1)?;
        a.vfmadd132ps(lo2, w2, two)?;
        a.vfmadd231ps(lo2, q, two_d2)?;
        a.vmulps(z, hi, hi)?;
        // sine: hi − (lo2 − hi·z·2p(z))/2, into zmm0
        a.vbroadcastss(p, dword_ptr(rbx + pool_off(pool::TRIG + sin_coef + 2)))?;
        a.vfmadd213ps(p, z, c(sin_coef + 1))?;
        a.vfmadd213ps(p, z, c(sin_coef))?;
        a.vmulps(zmm(0), hi, z)?;
        a.vfnmadd213ps(zmm(0), p, lo2)?;
        a.vfmadd132ps(zmm(0), hi, neg_half)?;
        // cosine: 1 − (hi² − hi·lo2 + z²·(−2c(z)))/2
        a.vbroadcastss(cq, dword_ptr(rbx + pool_off(pool::TRIG + cos_coef + 2)))?;
        a.vfmadd213ps(cq, z, c(cos_coef + 1))?;
        a.vfmadd213ps(cq, z, c(cos_coef))?;
        a.vmulps(zz, z, z)?;
        a.vmulps(zz, zz, cq)?;
        a.vfnmadd231ps(zz, hi, lo2)?;
        a.vfmadd231ps(zz, hi, hi)?;
        a.vbroadcastss(one, dword_ptr(rbx + pool_off(pool::ONE)))?;
        a.vfmadd132ps(zz, one, neg_half)?;
        // odd quadrant: the cosine; quadrant bit 1: negated
        a.vptestmd(k2, t, dword_bcst(rbx + pool_off(pool::INT1)))?;
        a.vmovaps(zmm(0).k2(), zz)?;
        a.vpslld(t, t, 30)?;
        a.vpternlogd(zmm(0), t, dword_bcst(rbx + pool_off(pool::SIGN)), 0x78)?;
        // an active lane beyond the path: the whole row by the row kernel
        let mut done = a.create_label();
        a.vpandd(xabs, zmm(x), dword_bcst(rbx + pool_off(pool::ABS)))?;
        a.vcmpps(k3.k1(), xabs, limit, NLT_UQ)?;
        a.kortestw(k3, k3)?;
        a.jz(done)?;
        a.vmovdqu32(zmmword_ptr(rbx + off::SCRATCH), zmm(x))?;
        self.cache_store()?;
        self.call(row_callback as *const () as usize as u64, k as u64)?;
        self.cache_load()?;
        self.a
            .vmovdqu32(zmm(0), zmmword_ptr(rbx + off::SCRATCH + 128))?;
        self.a.set_label(&mut done)?;
        Ok(self.replicate(inst)?)
    }

    /// Pair `p` of source `s` as 64-bit lanes (lanes 0..8, lanes 8..16):
    /// the loop cache's registers when it holds them (unmodified), else
    /// built in `lo`, `hi`. Returns the registers.
    fn fetch_pair(&mut self, lo: u32, hi: u32, s: &Src, p: usize) -> Result<(u32, u32), EmitError> {
        if let SrcKind::Reg(r) = s.kind
            && let Some(q) = aligned_pair(s, p)
            && let Some(sl) = self.slot(Key::Pair(r, q))
        {
            let (a, b) = sl.halves();
            let (abs, neg) = match s.modifier {
                Modifier::Apply { abs, neg, .. } => (abs, neg),
                Modifier::None => (false, false),
            };
            if !abs && !neg {
                return Ok((a, b));
            }
            for (src, dst) in [(a, lo), (b, hi)] {
                let bc = |p: i32| qword_bcst(rbx + pool_off(p));
                let mut from = src;
                if abs {
                    self.a.vpandq(zmm(dst), zmm(from), bc(pool::D_ABS))?;
                    from = dst;
                }
                if neg {
                    self.a.vpxorq(zmm(dst), zmm(from), bc(pool::D_SIGN))?;
                }
            }
            return Ok((lo, hi));
        }
        let x = self.fetch(4, s, 2 * p, true)?;
        let y = self.fetch(5, s, 2 * p + 1, true)?;
        let a = &mut self.a;
        a.vmovdqu32(zmm(lo), zmmword_ptr(rbx + off::PERM))?;
        a.vpermi2d(zmm(lo), zmm(x), zmm(y))?;
        a.vmovdqu32(zmm(hi), zmmword_ptr(rbx + off::PERM + 64))?;
        a.vpermi2d(zmm(hi), zmm(x), zmm(y))?;
        Ok((lo, hi))
    }

    fn pair(&mut self, inst: &Inst, op: Op64, n: usize, both: bool) -> R {
        let m = inst.dst[0].mask;
        let pairs = pairs_of(m, both);
        let shift = matches!(op, Op64::U64shl | Op64::U64shr | Op64::I64shr);
        // One pair written to a pair the loop cache holds: the op writes it
        // directly under the exec masks (its sources are all read by then).
        let direct = match inst.dst[0].kind {
            DstKind::Reg(r) if pairs[0] != pairs[1] && !inst.saturate && op != Op64::I64neg => self
                .slot(Key::Pair(r, u8::from(pairs[1])))
                .map(|sl| (sl, self.pair_local(r, usize::from(pairs[1])))),
            _ => None,
        };
        for p in 0..2 {
            if !pairs[p] {
                continue;
            }
            // sources in (8,9), (10,11), (12,13) unless cached; result of
            // pair p in (2p, 2p+1), or in the cached destination
            let srcs = if shift { 1 } else { n };
            let mut regs = [(8, 9), (10, 11), (12, 13)];
            for k in 0..srcs {
                regs[k] = self.fetch_pair(8 + 2 * k as u32, 9 + 2 * k as u32, &inst.src[k], p)?;
            }
            let count = shift
                .then(|| self.immediate_word(&inst.src[1], p))
                .flatten();
            if let Some(n) = count {
                // an immediate count: the shift by its constant (the count is masked to 0..63)
                for h in 0..2 {
                    let (x, o) = (
                        zmm(if h == 0 { regs[0].0 } else { regs[0].1 }),
                        Self::pair_out(direct, p, h),
                    );
                    let n = n & 63;
                    match op {
                        Op64::U64shl => self.a.vpsllq(o, x, n)?,
                        Op64::U64shr => self.a.vpsrlq(o, x, n)?,
                        _ => self.a.vpsraq(o, x, n)?,
                    }
                    if inst.saturate {
                        self.saturate64(2 * p as u32 + h)?;
                    }
                }
            } else if shift {
                // the count: src1 channel p (x for the xy pair, y for zw)
                let n = self.fetch(6, &inst.src[1], p, false)?;
                let a = &mut self.a;
                a.vpandd(zmm(6), zmm(n), dword_bcst(rbx + pool_off(pool::MASK63)))?;
                a.vextracti32x8(ymm(5), zmm(6), 1)?;
                a.vpmovzxdq(zmm(10), ymm(6))?;
                a.vpmovzxdq(zmm(11), ymm(5))?;
                regs[1] = (10, 11);
            }
            for h in 0..2usize {
                if count.is_some() {
                    break;
                }
                let pick = |r: (u32, u32)| zmm(if h == 0 { r.0 } else { r.1 });
                let (x, y, z) = (pick(regs[0]), pick(regs[1]), pick(regs[2]));
                let o = Self::pair_out(direct, p, h as u32);
                let a = &mut self.a;
                let bc = |p: i32| qword_bcst(rbx + pool_off(p));
                match op {
                    Op64::Dadd => a.vaddpd(o, x, y),
                    Op64::Dmul => a.vmulpd(o, x, y),
                    Op64::Ddiv => a.vdivpd(o, x, y),
                    Op64::Dmad => a.vmulpd(zmm(7), x, y).and_then(|_| a.vaddpd(o, zmm(7), z)),
                    Op64::Dabs => a.vpandq(o, x, bc(pool::D_ABS)),
                    Op64::Dneg => a.vpxorq(o, x, bc(pool::D_SIGN)),
                    Op64::U64add => a.vpaddq(o, x, y),
                    Op64::U64mul => a.vpmullq(o, x, y),
                    Op64::I64neg => a.vpxorq(o, o, o).and_then(|_| a.vpsubq(o, o, x)),
                    Op64::U64shl => a.vpsllvq(o, x, y),
                    Op64::U64shr => a.vpsrlvq(o, x, y),
                    Op64::I64shr => a.vpsravq(o, x, y),
                    Op64::Mov64 => a.vmovdqa64(o, x),
                    Op64::Not64 => a.vpternlogq(o, x, x, 0x55),
                    Op64::And64 => a.vpandq(o, x, y),
                    Op64::Or64 => a.vporq(o, x, y),
                    Op64::Xor64 => a.vpxorq(o, x, y),
                }?;
                if inst.saturate {
                    self.saturate64(2 * p as u32 + h as u32)?;
                }
            }
        }
        // every source read: store the pairs
        for p in 0..2 {
            if !pairs[p] || direct.is_some() {
                continue;
            }
            let (rlo, rhi) = (2 * p as u32, 2 * p as u32 + 1);
            let cached = match inst.dst[0].kind {
                DstKind::Reg(r) => self.slot(Key::Pair(r, p as u8)),
                _ => None,
            };
            if let Some(sl) = cached {
                let (lo, hi) = sl.halves();
                self.a.vmovdqa64(zmm(lo).k1(), zmm(rlo))?;
                self.a.vmovdqa64(zmm(hi).k4(), zmm(rhi))?;
                continue;
            }
            // back to rows: low words → zmm12, high words → zmm13
            let a = &mut self.a;
            a.vmovdqu32(zmm(12), zmmword_ptr(rbx + off::PERM + 128))?;
            a.vpermi2d(zmm(12), zmm(rlo), zmm(rhi))?;
            a.vmovdqu32(zmm(13), zmmword_ptr(rbx + off::PERM + 192))?;
            a.vpermi2d(zmm(13), zmm(rlo), zmm(rhi))?;
            self.store(inst, 2 * p, 12)?;
            self.store(inst, 2 * p + 1, 13)?;
        }
        Ok(())
    }

    /// Where half `h` of pair `p`'s result goes: the cached destination
    /// pair when [`Emitter::pair`] writes it directly, under the exec masks
    /// (k1 for lanes 0..8, k4 for 8..16) unless the pair is segment-local
    /// (then every lane: see [`segment_local`]), else scratch `2p + h`.
    fn pair_out(direct: Option<(Slot, bool)>, p: usize, h: u32) -> AsmRegisterZmm {
        match direct.map(|(sl, local)| (sl.halves(), local)) {
            Some(((lo, _), true)) if h == 0 => zmm(lo),
            Some(((_, hi), true)) => zmm(hi),
            Some(((lo, _), false)) if h == 0 => zmm(lo).k1(),
            Some(((_, hi), false)) => zmm(hi).k4(),
            None => zmm(2 * p as u32 + h),
        }
    }

    /// Whether both channels of pair `q` of register `r` are segment-local.
    fn pair_local(&self, r: u32, q: usize) -> bool {
        let temp = self.code.temp;
        (r >= temp.base && r < temp.base + temp.len)
            && self.local[(r - temp.base) as usize][2 * q..2 * q + 2]
                .iter()
                .all(|&l| l)
    }

    // ---- flow control ------------------------------------------------------

    /// Loads channel x of source 0 of instruction `at` into zmm `z`: inline
    /// when it can, else through the interpreter's operand fetch (a call:
    /// every vector and mask register is clobbered before `z` is loaded).
    fn fetch_x(&mut self, z: u32, at: usize) -> R {
        let s = self.code.insts[at].src[0];
        if src_inline(&s, false) {
            let got = self.fetch(z, &s, 0, false)?;
            if got != z {
                self.a.vmovdqa32(zmm(z), zmm(got))?;
            }
            return Ok(());
        }
        self.call(fetch_callback as *const () as usize as u64, at as u64)?;
        self.a.vmovdqu32(zmm(z), zmmword_ptr(rbx + off::SCRATCH))?;
        Ok(())
    }

    fn flow(&mut self, i: usize, inst: &Inst, depth: usize, frames: &[Frame]) -> R {
        let t = inst.target as usize;
        let fr = |d: usize, w: usize| dword_ptr(rbx + frame_off(d, w));
        match inst.op {
            Opcode::IF | Opcode::UIF => {
                self.fetch_x(4, i)?;
                let a = &mut self.a;
                if inst.op == Opcode::IF {
                    a.vptestmd(k2, zmm(4), dword_bcst(rbx + pool_off(pool::ABS)))?;
                } else {
                    a.vptestmd(k2, zmm(4), zmm(4))?;
                }
                a.kmovw(ecx, k2)?;
                a.mov(fr(depth, 0), r9d)?;
                a.and(r9d, ecx)?;
                // only cond narrowed: exec & test is the new exec
                a.and(ebp, ecx)?;
                self.exec_to_k()?;
                self.skip_if_idle(t)?;
            }
            Opcode::ELSE => {
                self.a.not(r9d)?;
                self.a.and(r9d, fr(depth - 1, 0))?;
                self.update_exec()?;
                self.skip_if_idle(t)?;
            }
            Opcode::ENDIF => {
                self.a.mov(r9d, fr(depth - 1, 0))?;
                self.update_exec()?;
            }
            Opcode::BGNLOOP => {
                self.a.mov(fr(depth, 0), r10d)?;
                self.a.mov(fr(depth, 1), r11d)?;
                if let Some(r) = self.regions[i].clone() {
                    self.active = Some(r);
                    self.cache_load()?;
                }
                self.skip_if_idle(t)?;
            }
            Opcode::ENDLOOP => {
                self.a.mov(r11d, fr(depth - 1, 1))?;
                self.update_exec()?;
                self.a.test(ebp, ebp)?;
                self.a.jnz(self.labels[t + 1])?;
                self.a.mov(r10d, fr(depth - 1, 0))?;
                self.update_exec()?;
                if self.active.as_ref().is_some_and(|r| r.end == i) {
                    self.cache_store()?;
                    self.active = None;
                }
            }
            Opcode::BRK if inst.brk_switch => {
                self.clear_active(esi)?;
            }
            Opcode::BRK | Opcode::CONT => {
                let m = if inst.op == Opcode::BRK { r10d } else { r11d };
                self.clear_active(m)?;
                self.leave_if_dead(t, depth, frames)?;
            }
            Opcode::SWITCH => {
                self.fetch_x(4, i)?;
                let sel = off::SELECTORS + 64 * depth as i32;
                self.a.vmovdqu32(zmmword_ptr(rbx + sel), zmm(4))?;
                // frame: [0] outer switch mask, [1] entry (exec), [2] lanes no CASE matches
                self.a.mov(fr(depth, 2), 0)?;
                let cases = self.code.switch_cases[inst.aux as usize].clone();
                for ci in cases {
                    self.fetch_x(5, ci as usize)?;
                    self.a.vpcmpeqd(k2, zmm(5), zmmword_ptr(rbx + sel))?;
                    self.a.kmovw(ecx, k2)?;
                    self.a.or(fr(depth, 2), ecx)?;
                }
                let a = &mut self.a;
                a.mov(ecx, fr(depth, 2))?;
                a.not(ecx)?;
                a.and(ecx, 0xFFFF)?;
                a.mov(fr(depth, 2), ecx)?;
                a.mov(fr(depth, 0), esi)?;
                a.mov(fr(depth, 1), ebp)?;
                a.xor(esi, esi)?;
                self.update_exec()?;
            }
            Opcode::CASE | Opcode::DEFAULT => {
                if inst.op == Opcode::CASE {
                    self.fetch_x(5, i)?;
                    self.a.vpcmpeqd(
                        k2,
                        zmm(5),
                        zmmword_ptr(rbx + off::SELECTORS + 64 * (depth - 1) as i32),
                    )?;
                    self.a.kmovw(ecx, k2)?;
                } else {
                    self.a.mov(ecx, fr(depth - 1, 2))?;
                }
                self.a.and(ecx, fr(depth - 1, 1))?;
                self.a.or(esi, ecx)?;
                self.update_exec()?;
            }
            Opcode::ENDSWITCH => {
                self.a.mov(esi, fr(depth - 1, 0))?;
                self.update_exec()?;
            }
            Opcode::RET => {
                self.clear_active(edi)?;
                self.a.mov(eax, edi)?;
                self.a.and(eax, r8d)?;
                self.a.jz(self.end)?;
            }
            Opcode::END | Opcode::ENDSUB => self.a.jmp(self.end)?,
            Opcode::BGNSUB | Opcode::NOP | Opcode::MEMBAR => {}
            Opcode::BARRIER => {
                // the batch stops here; `run` keeps its masks and frames and
                // the prologue jumps back to the next instruction
                self.a.mov(dword_ptr(rbx + off::RESUME), (i + 1) as u32)?;
                self.a.jmp(self.suspend)?;
            }
            _ => return Err("flow-control opcode without a template".into()),
        }
        Ok(())
    }

    /// `mask &= !exec`, which leaves no lane active (every active lane is
    /// in `mask`, so the new exec is `exec & !exec`).
    fn clear_active(&mut self, m: AsmRegister32) -> A {
        self.a.mov(ecx, ebp)?;
        self.a.not(ecx)?;
        self.a.and(m, ecx)?;
        self.a.xor(ebp, ebp)?;
        self.exec_to_k()
    }

    /// BRK/CONT with no active lane: when no lane can still run the rest of
    /// the loop body (masks of the blocks inside the loop taken as they were
    /// at the loop's level), pops those blocks and jumps to the ENDLOOP `t`.
    fn leave_if_dead(&mut self, t: usize, depth: usize, frames: &[Frame]) -> A {
        // frames between the instruction and its loop, innermost first
        let mut outer_if = None;
        let mut outer_switch = None;
        for d in (0..depth).rev() {
            match frames[d] {
                Frame::Loop => break,
                Frame::If => outer_if = Some(d),
                Frame::Switch => outer_switch = Some(d),
            }
        }
        let a = &mut self.a;
        // ecx = cond at the loop level, edx = switch at the loop level
        match outer_if {
            Some(d) => a.mov(ecx, dword_ptr(rbx + frame_off(d, 0)))?,
            None => a.mov(ecx, r9d)?,
        }
        match outer_switch {
            Some(d) => a.mov(edx, dword_ptr(rbx + frame_off(d, 0)))?,
            None => a.mov(edx, esi)?,
        }
        a.mov(eax, ecx)?;
        a.and(eax, edx)?;
        for m in [r8d, r10d, r11d, edi] {
            a.and(eax, m)?;
        }
        let next = a.create_label();
        a.jnz(next)?;
        a.mov(r9d, ecx)?;
        a.mov(esi, edx)?;
        a.jmp(self.labels[t])?;
        place(&mut self.a, next)
    }
}
