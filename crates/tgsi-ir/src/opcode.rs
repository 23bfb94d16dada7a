//! The one opcode table of TGSI.
//!
//! Every one of the 252 opcode slots (gaps included) is one row here: number,
//! name, operand counts, operand types, how channels behave, category and
//! flags. The text parser, the printer, the token codec and the validator take
//! everything they know of an opcode from this table, and the machine's
//! decoder takes operand types and channel shapes from it. What an opcode
//! computes is not here: the scalar functions of `exec::ops` say it, and the
//! interpreter's dispatch (`exec/alu.rs`, `exec/fast.rs`) and the compiled
//! engine's templates (`jit/emit.rs`) each match on the opcode to apply them;
//! the differential tests and `tgsi fuzz` hold those paths to the same bits.
//!
//! Operand types follow Mesa's `tgsi_info` type inference (the spec's rule for
//! how `-` and `|x|` apply); channel shapes of 64-bit opcodes follow the
//! pairing rules of the 64-bit ISA (a value per channel pair xy / zw).

use bitflags::bitflags;

/// The type an operand is read or written as; decides what source modifiers mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandType {
    Float,
    Int,
    Uint,
    Double,
    Int64,
    Uint64,
    /// Bits are moved unchanged (MOV, UCMP); modifiers act as on floats.
    Untyped,
}

impl OperandType {
    /// True for the 64-bit types whose values live in channel pairs.
    pub fn is_64bit(self) -> bool {
        matches!(self, Self::Double | Self::Int64 | Self::Uint64)
    }
    /// True for the 32-bit integer types (where `-` is two's-complement negation).
    pub fn is_integer(self) -> bool {
        matches!(self, Self::Int | Self::Uint)
    }
}

/// How a 64-bit opcode maps channel pairs (xy, zw) of its operands to its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PairShape {
    /// one 64-bit source pair to one 64-bit result pair
    Unary,
    /// two 64-bit sources
    Binary,
    /// three 64-bit sources
    Ternary,
    /// two 64-bit sources to a 32-bit boolean per pair (in x and z, see
    /// [`PairShape::word_channels`])
    Compare,
    /// a 64-bit source and a 32-bit count or exponent (src1.x for xy, src1.y for zw; DLDEXP src1.z)
    Shift,
    /// 32-bit source channel x (y) to a 64-bit pair xy (zw)
    Widen,
    /// a 64-bit pair xy (zw) to a 32-bit channel x (y), see
    /// [`PairShape::word_channels`]
    Narrow,
    /// DFRACEXP: significand pair to dst0, 32-bit exponent to dst1
    FracExp,
}

impl PairShape {
    /// The 32-bit channel each pair (0: xy, 1: zw) of a compare or a
    /// narrowing conversion writes under writemask `mask`, as tgsi.rst
    /// states them: a compare's `dst.x` (from xy) and `dst.z` (from zw), a
    /// narrowing conversion's `dst.x` (from xy) and `dst.y` (from zw); None
    /// where the mask leaves that channel out (and for other shapes). The
    /// other channels are never written by these opcodes.
    pub fn word_channels(self, mask: u8) -> [Option<usize>; 2] {
        std::array::from_fn(|pair| {
            let channel = match self {
                PairShape::Compare => 2 * pair,
                PairShape::Narrow => pair,
                _ => return None,
            };
            (mask & (1 << channel) != 0).then_some(channel)
        })
    }

    /// [`PairShape::word_channels`] as a writemask of the written channels.
    pub fn written_words(self, mask: u8) -> u8 {
        self.word_channels(mask)
            .into_iter()
            .flatten()
            .fold(0, |m, c| m | 1 << c)
    }
}

/// How an opcode's destination channels relate to its source channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channels {
    /// channel c of the result comes from channel c of the sources
    Component,
    /// one scalar from the .x of each source, replicated to every enabled channel
    Scalar,
    /// each channel has its own formula, or the opcode is a resource/special op
    Special,
    /// 64-bit values in channel pairs
    Pair64(PairShape),
    /// no result
    None,
}

/// What family an opcode belongs to (for documentation, validation and dispatch).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Category {
    FloatAlu,
    Integer,
    Int64,
    Double,
    Conversion,
    Pack,
    Derivative,
    Flow,
    Fragment,
    Interpolation,
    Texture,
    Sampling,
    Memory,
    Atomic,
    InterLane,
    Geometry,
    Bindless,
    Misc,
    Gap,
}

impl Category {
    /// The arithmetic families (float, integer, 64-bit, double,
    /// conversion, packing): an opcode of one computes its destination from
    /// its source words alone, in each lane on its own.
    pub fn is_lane_arithmetic(self) -> bool {
        matches!(
            self,
            Category::FloatAlu
                | Category::Integer
                | Category::Int64
                | Category::Double
                | Category::Conversion
                | Category::Pack
        )
    }
}

bitflags! {
    /// Opcode flags.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct OpFlags: u16 {
        /// takes a texture-target operand after its registers (TEX family)
        const TEX = 1 << 0;
        /// writes memory through its first operand (STORE, atomics)
        const STORE = 1 << 1;
        /// may carry a jump label `:N`
        const BRANCH = 1 << 2;
        /// printed one indent level less (ELSE, ENDIF, ENDLOOP, ENDSUB)
        const PRE_DEDENT = 1 << 3;
        /// what follows is printed one indent level more
        const POST_INDENT = 1 << 4;
        /// SAMPLE family: texture token without target, so texel offsets may follow
        const SAMPLE = 1 << 5;
        /// the assembler gives it a memory token (qualifiers, image target and format)
        const MEMORY = 1 << 6;
        /// an unused slot
        const GAP = 1 << 7;
    }
}

/// Static facts about one opcode: one row of the table.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub opcode: Opcode,
    pub name: &'static str,
    pub num_dst: u8,
    pub num_src: u8,
    pub channels: Channels,
    pub category: Category,
    /// type of the destination (and default type of the sources)
    pub dst_type: OperandType,
    /// type of each source operand, `num_src` entries
    pub src_types: &'static [OperandType],
    pub flags: OpFlags,
}

macro_rules! opcode_table {
    ($($num:literal $id:ident $nd:literal $ns:literal $mode:expr, $cat:ident $dt:ident [$($st:ident),*] {$flags:expr};)*) => {
        /// A TGSI opcode; the discriminant is its number in the binary format.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Opcode {
            $($id = $num,)*
        }

        /// The table, indexed by opcode number.
        pub static OPCODES: [OpInfo; 252] = [
            $(OpInfo {
                opcode: Opcode::$id,
                name: stringify!($id),
                num_dst: $nd,
                num_src: $ns,
                channels: {
                    #[allow(unused_imports)]
                    use Channels::*;
                    $mode
                },
                category: Category::$cat,
                dst_type: OperandType::$dt,
                src_types: &[$(OperandType::$st),*],
                flags: $flags,
            },)*
        ];
    };
}

opcode_table! {
    0   ARL             1 1 Component,                 FloatAlu      Int      [Float] {OpFlags::empty()};
    1   MOV             1 1 Component,                 FloatAlu      Untyped  [Untyped] {OpFlags::empty()};
    2   LIT             1 1 Special,                   FloatAlu      Float    [Float] {OpFlags::empty()};
    3   RCP             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    4   RSQ             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    5   EXP             1 1 Special,                   FloatAlu      Float    [Float] {OpFlags::empty()};
    6   LOG             1 1 Special,                   FloatAlu      Float    [Float] {OpFlags::empty()};
    7   MUL             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    8   ADD             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    9   DP3             1 2 Scalar,                    FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    10  DP4             1 2 Scalar,                    FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    11  DST             1 2 Special,                   FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    12  MIN             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    13  MAX             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    14  SLT             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    15  SGE             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    16  MAD             1 3 Component,                 FloatAlu      Float    [Float, Float, Float] {OpFlags::empty()};
    17  TEX_LZ          1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    18  LRP             1 3 Component,                 FloatAlu      Float    [Float, Float, Float] {OpFlags::empty()};
    19  FMA             1 3 Component,                 FloatAlu      Float    [Float, Float, Float] {OpFlags::empty()};
    20  SQRT            1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    21  LDEXP           1 2 Component,                 FloatAlu      Float    [Float, Int] {OpFlags::empty()};
    22  F2U64           1 1 Pair64(PairShape::Widen),  Conversion    Uint64   [Float] {OpFlags::empty()};
    23  F2I64           1 1 Pair64(PairShape::Widen),  Conversion    Int64    [Float] {OpFlags::empty()};
    24  FRC             1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    25  TXF_LZ          1 2 Special,                   Texture       Float    [Uint, Uint] {OpFlags::TEX};
    26  FLR             1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    27  ROUND           1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    28  EX2             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    29  LG2             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    30  POW             1 2 Scalar,                    FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    31  DEMOTE          0 0 None,                      Fragment      Untyped  [] {OpFlags::empty()};
    32  U2I64           1 1 Pair64(PairShape::Widen),  Conversion    Int64    [Uint] {OpFlags::empty()};
    33  CLOCK           1 0 Special,                   Misc          Float    [] {OpFlags::empty()};
    34  I2I64           1 1 Pair64(PairShape::Widen),  Conversion    Int64    [Int] {OpFlags::empty()};
    35  READ_HELPER     1 0 Component,                 Fragment      Float    [] {OpFlags::empty()};
    36  COS             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    37  DDX             1 1 Component,                 Derivative    Float    [Float] {OpFlags::empty()};
    38  DDY             1 1 Component,                 Derivative    Float    [Float] {OpFlags::empty()};
    39  KILL            0 0 None,                      Fragment      Untyped  [] {OpFlags::empty()};
    40  PK2H            1 1 Scalar,                    Pack          Float    [Float] {OpFlags::empty()};
    41  PK2US           1 1 Scalar,                    Pack          Float    [Float] {OpFlags::empty()};
    42  PK4B            1 1 Scalar,                    Pack          Float    [Float] {OpFlags::empty()};
    43  PK4UB           1 1 Scalar,                    Pack          Float    [Float] {OpFlags::empty()};
    44  D2U64           1 1 Pair64(PairShape::Unary),  Conversion    Uint64   [Double] {OpFlags::empty()};
    45  SEQ             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    46  D2I64           1 1 Pair64(PairShape::Unary),  Conversion    Int64    [Double] {OpFlags::empty()};
    47  SGT             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    48  SIN             1 1 Scalar,                    FloatAlu      Float    [Float] {OpFlags::empty()};
    49  SLE             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    50  SNE             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    51  U642D           1 1 Pair64(PairShape::Unary),  Conversion    Double   [Uint64] {OpFlags::empty()};
    52  TEX             1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    53  TXD             1 4 Special,                   Texture       Float    [Float, Float, Float, Float] {OpFlags::TEX};
    54  TXP             1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    55  UP2H            1 1 Special,                   Pack          Float    [Uint] {OpFlags::empty()};
    56  UP2US           1 1 Special,                   Pack          Float    [Float] {OpFlags::empty()};
    57  UP4B            1 1 Special,                   Pack          Float    [Float] {OpFlags::empty()};
    58  UP4UB           1 1 Special,                   Pack          Float    [Float] {OpFlags::empty()};
    59  U642F           1 1 Pair64(PairShape::Narrow), Conversion    Float    [Uint64] {OpFlags::empty()};
    60  I642F           1 1 Pair64(PairShape::Narrow), Conversion    Float    [Int64] {OpFlags::empty()};
    61  ARR             1 1 Component,                 FloatAlu      Int      [Float] {OpFlags::empty()};
    62  I642D           1 1 Pair64(PairShape::Unary),  Conversion    Double   [Int64] {OpFlags::empty()};
    63  CAL             0 0 None,                      Flow          Untyped  [] {OpFlags::BRANCH};
    64  RET             0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    65  SSG             1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    66  CMP             1 3 Component,                 FloatAlu      Float    [Float, Float, Float] {OpFlags::empty()};
    67  UNK67           0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    68  TXB             1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    69  FBFETCH         1 1 Special,                   Fragment      Float    [Float] {OpFlags::empty()};
    70  DIV             1 2 Component,                 FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    71  DP2             1 2 Scalar,                    FloatAlu      Float    [Float, Float] {OpFlags::empty()};
    72  TXL             1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    73  BRK             0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    74  IF              0 1 None,                      Flow          Untyped  [Float] {OpFlags::BRANCH.union(OpFlags::POST_INDENT)};
    75  UIF             0 1 None,                      Flow          Untyped  [Uint] {OpFlags::BRANCH.union(OpFlags::POST_INDENT)};
    76  READ_INVOC      1 2 Component,                 InterLane     Float    [Float, Float] {OpFlags::empty()};
    77  ELSE            0 0 None,                      Flow          Untyped  [] {OpFlags::BRANCH.union(OpFlags::PRE_DEDENT).union(OpFlags::POST_INDENT)};
    78  ENDIF           0 0 None,                      Flow          Untyped  [] {OpFlags::PRE_DEDENT};
    79  DDX_FINE        1 1 Component,                 Derivative    Float    [Float] {OpFlags::empty()};
    80  DDY_FINE        1 1 Component,                 Derivative    Float    [Float] {OpFlags::empty()};
    81  UNK81           0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    82  UNK82           0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    83  CEIL            1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    84  I2F             1 1 Component,                 Conversion    Float    [Int] {OpFlags::empty()};
    85  NOT             1 1 Component,                 Integer       Uint     [Uint] {OpFlags::empty()};
    86  TRUNC           1 1 Component,                 FloatAlu      Float    [Float] {OpFlags::empty()};
    87  SHL             1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    88  BALLOT          1 1 Special,                   InterLane     Float    [Float] {OpFlags::empty()};
    89  AND             1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    90  OR              1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    91  MOD             1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    92  XOR             1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    93  UNK93           0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    94  TXF             1 2 Special,                   Texture       Float    [Uint, Uint] {OpFlags::TEX};
    95  TXQ             1 2 Special,                   Texture       Uint     [Uint, Uint] {OpFlags::TEX};
    96  CONT            0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    97  EMIT            0 1 None,                      Geometry      Untyped  [Float] {OpFlags::empty()};
    98  ENDPRIM         0 1 None,                      Geometry      Untyped  [Float] {OpFlags::empty()};
    99  BGNLOOP         0 0 None,                      Flow          Untyped  [] {OpFlags::BRANCH.union(OpFlags::POST_INDENT)};
    100 BGNSUB          0 0 None,                      Flow          Untyped  [] {OpFlags::POST_INDENT};
    101 ENDLOOP         0 0 None,                      Flow          Untyped  [] {OpFlags::BRANCH.union(OpFlags::PRE_DEDENT)};
    102 ENDSUB          0 0 None,                      Flow          Untyped  [] {OpFlags::PRE_DEDENT};
    103 ATOMFADD        1 3 Special,                   Atomic        Float    [Float, Float, Float] {OpFlags::STORE};
    104 TXQS            1 1 Special,                   Texture       Uint     [Uint] {OpFlags::TEX};
    105 RESQ            1 1 Special,                   Memory        Float    [Float] {OpFlags::MEMORY};
    106 READ_FIRST      1 1 Component,                 InterLane     Float    [Float] {OpFlags::empty()};
    107 NOP             0 0 None,                      Misc          Untyped  [] {OpFlags::empty()};
    108 FSEQ            1 2 Component,                 FloatAlu      Int      [Float, Float] {OpFlags::empty()};
    109 FSGE            1 2 Component,                 FloatAlu      Int      [Float, Float] {OpFlags::empty()};
    110 FSLT            1 2 Component,                 FloatAlu      Int      [Float, Float] {OpFlags::empty()};
    111 FSNE            1 2 Component,                 FloatAlu      Int      [Float, Float] {OpFlags::empty()};
    112 MEMBAR          0 1 Special,                   Memory        Untyped  [Uint] {OpFlags::empty()};
    113 UNK113          0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    114 UNK114          0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    115 UNK115          0 0 None,                      Gap           Untyped  [] {OpFlags::GAP};
    116 KILL_IF         0 1 None,                      Fragment      Untyped  [Float] {OpFlags::empty()};
    117 END             0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    118 DFMA            1 3 Pair64(PairShape::Ternary), Double        Double   [Double, Double, Double] {OpFlags::empty()};
    119 F2I             1 1 Component,                 Conversion    Int      [Float] {OpFlags::empty()};
    120 IDIV            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    121 IMAX            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    122 IMIN            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    123 INEG            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    124 ISGE            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    125 ISHR            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    126 ISLT            1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    127 F2U             1 1 Component,                 Conversion    Uint     [Float] {OpFlags::empty()};
    128 U2F             1 1 Component,                 Conversion    Float    [Uint] {OpFlags::empty()};
    129 UADD            1 2 Component,                 Integer       Int      [Uint, Uint] {OpFlags::empty()};
    130 UDIV            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    131 UMAD            1 3 Component,                 Integer       Uint     [Uint, Uint, Uint] {OpFlags::empty()};
    132 UMAX            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    133 UMIN            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    134 UMOD            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    135 UMUL            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    136 USEQ            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    137 USGE            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    138 USHR            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    139 USLT            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    140 USNE            1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    141 SWITCH          0 1 None,                      Flow          Untyped  [Uint] {OpFlags::empty()};
    142 CASE            0 1 None,                      Flow          Untyped  [Uint] {OpFlags::empty()};
    143 DEFAULT         0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    144 ENDSWITCH       0 0 None,                      Flow          Untyped  [] {OpFlags::empty()};
    145 SAMPLE          1 3 Special,                   Sampling      Float    [Float, Float, Float] {OpFlags::SAMPLE};
    146 SAMPLE_I        1 2 Special,                   Sampling      Float    [Uint, Uint] {OpFlags::SAMPLE};
    147 SAMPLE_I_MS     1 3 Special,                   Sampling      Float    [Uint, Uint, Uint] {OpFlags::SAMPLE};
    148 SAMPLE_B        1 4 Special,                   Sampling      Float    [Float, Float, Float, Float] {OpFlags::SAMPLE};
    149 SAMPLE_C        1 4 Special,                   Sampling      Float    [Float, Float, Float, Float] {OpFlags::SAMPLE};
    150 SAMPLE_C_LZ     1 4 Special,                   Sampling      Float    [Float, Float, Float, Float] {OpFlags::SAMPLE};
    151 SAMPLE_D        1 5 Special,                   Sampling      Float    [Float, Float, Float, Float, Float] {OpFlags::SAMPLE};
    152 SAMPLE_L        1 4 Special,                   Sampling      Float    [Float, Float, Float, Float] {OpFlags::SAMPLE};
    153 GATHER4         1 3 Special,                   Sampling      Float    [Float, Float, Float] {OpFlags::SAMPLE};
    154 SVIEWINFO       1 2 Special,                   Sampling      Uint     [Uint, Uint] {OpFlags::empty()};
    155 SAMPLE_POS      1 2 Special,                   Sampling      Float    [Float, Float] {OpFlags::empty()};
    156 SAMPLE_INFO     1 2 Special,                   Sampling      Float    [Float, Float] {OpFlags::empty()};
    157 UARL            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    158 UCMP            1 3 Component,                 Integer       Untyped  [Float, Float, Float] {OpFlags::empty()};
    159 IABS            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    160 ISSG            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    161 LOAD            1 2 Special,                   Memory        Float    [Float, Uint] {OpFlags::MEMORY};
    162 STORE           1 2 Special,                   Memory        Float    [Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    163 IMG2HND         1 1 Special,                   Bindless      Uint     [Uint] {OpFlags::MEMORY};
    164 SAMP2HND        1 1 Special,                   Bindless      Uint     [Uint] {OpFlags::TEX.union(OpFlags::MEMORY)};
    165 UNK165          0 0 None,                      Gap           Untyped  [] {OpFlags::MEMORY.union(OpFlags::GAP)};
    166 BARRIER         0 0 Special,                   Memory        Untyped  [] {OpFlags::MEMORY};
    167 ATOMUADD        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    168 ATOMXCHG        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    169 ATOMCAS         1 4 Special,                   Atomic        Float    [Float, Uint, Float, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    170 ATOMAND         1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    171 ATOMOR          1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    172 ATOMXOR         1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    173 ATOMUMIN        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    174 ATOMUMAX        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    175 ATOMIMIN        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    176 ATOMIMAX        1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE.union(OpFlags::MEMORY)};
    177 TEX2            1 3 Special,                   Texture       Float    [Float, Float, Float] {OpFlags::TEX};
    178 TXB2            1 3 Special,                   Texture       Float    [Float, Float, Float] {OpFlags::TEX};
    179 TXL2            1 3 Special,                   Texture       Float    [Float, Float, Float] {OpFlags::TEX};
    180 IMUL_HI         1 2 Component,                 Integer       Int      [Int, Int] {OpFlags::empty()};
    181 UMUL_HI         1 2 Component,                 Integer       Uint     [Uint, Uint] {OpFlags::empty()};
    182 TG4             1 3 Special,                   Texture       Float    [Float, Float, Float] {OpFlags::TEX};
    183 LODQ            1 2 Special,                   Texture       Float    [Float, Float] {OpFlags::TEX};
    184 IBFE            1 3 Component,                 Integer       Int      [Int, Int, Int] {OpFlags::empty()};
    185 UBFE            1 3 Component,                 Integer       Uint     [Uint, Uint, Uint] {OpFlags::empty()};
    186 BFI             1 4 Component,                 Integer       Uint     [Uint, Uint, Uint, Uint] {OpFlags::empty()};
    187 BREV            1 1 Component,                 Integer       Uint     [Uint] {OpFlags::empty()};
    188 POPC            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    189 LSB             1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    190 IMSB            1 1 Component,                 Integer       Int      [Int] {OpFlags::empty()};
    191 UMSB            1 1 Component,                 Integer       Int      [Uint] {OpFlags::empty()};
    192 INTERP_CENTROID 1 1 Special,                   Interpolation Float    [Float] {OpFlags::empty()};
    193 INTERP_SAMPLE   1 2 Special,                   Interpolation Float    [Float, Float] {OpFlags::empty()};
    194 INTERP_OFFSET   1 2 Special,                   Interpolation Float    [Float, Float] {OpFlags::empty()};
    195 F2D             1 1 Pair64(PairShape::Widen),  Conversion    Double   [Float] {OpFlags::empty()};
    196 D2F             1 1 Pair64(PairShape::Narrow), Conversion    Float    [Double] {OpFlags::empty()};
    197 DABS            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    198 DNEG            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    199 DADD            1 2 Pair64(PairShape::Binary), Double        Double   [Double, Double] {OpFlags::empty()};
    200 DMUL            1 2 Pair64(PairShape::Binary), Double        Double   [Double, Double] {OpFlags::empty()};
    201 DMAX            1 2 Pair64(PairShape::Binary), Double        Double   [Double, Double] {OpFlags::empty()};
    202 DMIN            1 2 Pair64(PairShape::Binary), Double        Double   [Double, Double] {OpFlags::empty()};
    203 DSLT            1 2 Pair64(PairShape::Compare), Double        Int      [Double, Double] {OpFlags::empty()};
    204 DSGE            1 2 Pair64(PairShape::Compare), Double        Int      [Double, Double] {OpFlags::empty()};
    205 DSEQ            1 2 Pair64(PairShape::Compare), Double        Int      [Double, Double] {OpFlags::empty()};
    206 DSNE            1 2 Pair64(PairShape::Compare), Double        Int      [Double, Double] {OpFlags::empty()};
    207 DRCP            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    208 DSQRT           1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    209 DMAD            1 3 Pair64(PairShape::Ternary), Double        Double   [Double, Double, Double] {OpFlags::empty()};
    210 DFRAC           1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    211 DLDEXP          1 2 Pair64(PairShape::Shift),  Double        Double   [Double, Int] {OpFlags::empty()};
    212 DFRACEXP        2 1 Pair64(PairShape::FracExp), Double        Double   [Double] {OpFlags::empty()};
    213 D2I             1 1 Pair64(PairShape::Narrow), Conversion    Float    [Double] {OpFlags::empty()};
    214 I2D             1 1 Pair64(PairShape::Widen),  Conversion    Double   [Int] {OpFlags::empty()};
    215 D2U             1 1 Pair64(PairShape::Narrow), Conversion    Float    [Double] {OpFlags::empty()};
    216 U2D             1 1 Pair64(PairShape::Widen),  Conversion    Double   [Uint] {OpFlags::empty()};
    217 DRSQ            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    218 DTRUNC          1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    219 DCEIL           1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    220 DFLR            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    221 DROUND          1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    222 DSSG            1 1 Pair64(PairShape::Unary),  Double        Double   [Double] {OpFlags::empty()};
    223 VOTE_ANY        1 1 Component,                 InterLane     Float    [Float] {OpFlags::empty()};
    224 VOTE_ALL        1 1 Component,                 InterLane     Float    [Float] {OpFlags::empty()};
    225 VOTE_EQ         1 1 Component,                 InterLane     Float    [Float] {OpFlags::empty()};
    226 U64SEQ          1 2 Pair64(PairShape::Compare), Int64         Int      [Uint64, Uint64] {OpFlags::empty()};
    227 U64SNE          1 2 Pair64(PairShape::Compare), Int64         Int      [Uint64, Uint64] {OpFlags::empty()};
    228 I64SLT          1 2 Pair64(PairShape::Compare), Int64         Int      [Int64, Int64] {OpFlags::empty()};
    229 U64SLT          1 2 Pair64(PairShape::Compare), Int64         Int      [Uint64, Uint64] {OpFlags::empty()};
    230 I64SGE          1 2 Pair64(PairShape::Compare), Int64         Int      [Int64, Int64] {OpFlags::empty()};
    231 U64SGE          1 2 Pair64(PairShape::Compare), Int64         Int      [Uint64, Uint64] {OpFlags::empty()};
    232 I64MIN          1 2 Pair64(PairShape::Binary), Int64         Int64    [Int64, Int64] {OpFlags::empty()};
    233 U64MIN          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    234 I64MAX          1 2 Pair64(PairShape::Binary), Int64         Int64    [Int64, Int64] {OpFlags::empty()};
    235 U64MAX          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    236 I64ABS          1 1 Pair64(PairShape::Unary),  Int64         Int64    [Int64] {OpFlags::empty()};
    237 I64SSG          1 1 Pair64(PairShape::Unary),  Int64         Int64    [Int64] {OpFlags::empty()};
    238 I64NEG          1 1 Pair64(PairShape::Unary),  Int64         Int64    [Int64] {OpFlags::empty()};
    239 U64ADD          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    240 U64MUL          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    241 U64SHL          1 2 Pair64(PairShape::Shift),  Int64         Uint64   [Uint64, Uint] {OpFlags::empty()};
    242 I64SHR          1 2 Pair64(PairShape::Shift),  Int64         Int64    [Int64, Uint] {OpFlags::empty()};
    243 U64SHR          1 2 Pair64(PairShape::Shift),  Int64         Uint64   [Uint64, Uint] {OpFlags::empty()};
    244 I64DIV          1 2 Pair64(PairShape::Binary), Int64         Int64    [Int64, Int64] {OpFlags::empty()};
    245 U64DIV          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    246 I64MOD          1 2 Pair64(PairShape::Binary), Int64         Int64    [Int64, Int64] {OpFlags::empty()};
    247 U64MOD          1 2 Pair64(PairShape::Binary), Int64         Uint64   [Uint64, Uint64] {OpFlags::empty()};
    248 DDIV            1 2 Pair64(PairShape::Binary), Double        Double   [Double, Double] {OpFlags::empty()};
    249 LOD             1 3 Special,                   Sampling      Float    [Float, Float, Float] {OpFlags::empty()};
    250 ATOMINC_WRAP    1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE};
    251 ATOMDEC_WRAP    1 3 Special,                   Atomic        Float    [Float, Uint, Float] {OpFlags::STORE};
}

/// Number of opcode slots (`TGSI_OPCODE_LAST`).
pub const OPCODE_COUNT: usize = 252;

impl Opcode {
    /// The opcode with this number, if it is one of the 252 slots.
    pub fn from_u8(n: u8) -> Option<Opcode> {
        OPCODES.get(n as usize).map(|info| info.opcode)
    }
    /// The table row of this opcode.
    pub fn info(self) -> &'static OpInfo {
        &OPCODES[self as usize]
    }
    /// What Direct3D's float32 denormal rule flushes for this opcode
    /// (docs/numerics.md): its float sources (`.0`) and its float result
    /// (`.1`). Float arithmetic flushes both, moves and selects (MOV, CMP)
    /// neither; derivatives both; conversions from float their sources and
    /// D2F its result; the float packing opcodes their sources; everything
    /// else (integer, flow, memory, texture, selects of bits) keeps its bits.
    /// The machine and the SPIR-V back end both follow this.
    pub fn direct3d_flush(self) -> (bool, bool) {
        use Opcode::*;
        let info = self.info();
        match info.category {
            Category::FloatAlu if !matches!(self, MOV | CMP) => {
                (true, info.dst_type == OperandType::Float)
            }
            Category::Derivative => (true, true),
            Category::Conversion => (true, self == D2F),
            Category::Pack => (matches!(self, PK2H | PK2US | PK4B | PK4UB), false),
            _ => (false, false),
        }
    }
    /// The opcode's name as written in TGSI text.
    pub fn name(self) -> &'static str {
        self.info().name
    }
    /// Looks an opcode up by name, case-insensitively. Gap slots are not found.
    pub fn from_name(name: &str) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|i| !i.flags.contains(OpFlags::GAP) && i.name.eq_ignore_ascii_case(name))
            .map(|i| i.opcode)
    }
    pub fn flags(self) -> OpFlags {
        self.info().flags
    }
    pub fn is_tex(self) -> bool {
        self.flags().contains(OpFlags::TEX)
    }
    /// Reads a sampler view as its source 1: the SAMPLE family (sampled
    /// or fetched, GATHER4) and LOD.
    pub fn reads_sampler_view(self) -> bool {
        self.flags().contains(OpFlags::SAMPLE) || self == Opcode::LOD
    }
    /// The type of source `i` (for modifiers).
    pub fn src_type(self, i: usize) -> OperandType {
        self.info()
            .src_types
            .get(i)
            .copied()
            .unwrap_or(self.info().dst_type)
    }
}

impl std::fmt::Display for Opcode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_number() {
        for (n, info) in OPCODES.iter().enumerate() {
            assert_eq!(info.opcode as usize, n, "{}", info.name);
            assert_eq!(info.src_types.len(), info.num_src as usize, "{}", info.name);
        }
    }

    #[test]
    fn names_are_unique_and_found() {
        for info in OPCODES.iter().filter(|i| !i.flags.contains(OpFlags::GAP)) {
            assert_eq!(Opcode::from_name(info.name), Some(info.opcode));
            assert_eq!(
                Opcode::from_name(&info.name.to_lowercase()),
                Some(info.opcode)
            );
        }
        assert_eq!(Opcode::from_name("UNK67"), None);
    }

    #[test]
    fn known_rows() {
        assert_eq!(Opcode::SAMPLE_D.info().num_src, 5);
        assert_eq!(Opcode::DFRACEXP.info().num_dst, 2);
        assert_eq!(Opcode::ATOMCAS as u8, 169);
        assert!(Opcode::RESQ.flags().contains(OpFlags::MEMORY));
        assert!(!Opcode::ATOMFADD.flags().contains(OpFlags::MEMORY));
        assert_eq!(Opcode::LOAD.src_type(1), OperandType::Uint);
        assert_eq!(Opcode::I2D.src_type(0), OperandType::Int);
        assert_eq!(
            Opcode::U64SHL.info().channels,
            Channels::Pair64(PairShape::Shift)
        );
    }
}
