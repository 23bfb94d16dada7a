//! The enumerations of the Direct3D 9 shader token stream, one table each:
//! opcodes, register files, source modifiers, declaration usages, sampler
//! texture types and comparisons. The decoder, the encoder, the printer and
//! the slot counter all look things up here; none of them repeats a number or
//! a name.

/// How the tokens after an instruction token are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// An optional destination token, then source tokens. `sources` is the
    /// count a shader model 1 program encodes (it has no length field); models
    /// 2 and 3 take the count from the instruction's length.
    Regular { destination: bool, sources: u8 },
    /// `dcl`: a usage (or sampler type) token, then a destination token.
    Declaration,
    /// `def`: a destination token and four raw 32-bit floats.
    DefineFloat,
    /// `defi`: a destination token and four 32-bit signed integers.
    DefineInt,
    /// `defb`: a destination token and one boolean word.
    DefineBool,
}

/// How an opcode's mnemonic is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// The table name as it is.
    Plain,
    /// The table name, `_`, and the comparison in the instruction controls
    /// (`if_gt`, `break_ne`, `setp_le`).
    Comparison,
    /// `tex` before ps_1_4; from ps_1_4 on `texld`, `texldp` (controls 1) or
    /// `texldb` (controls 2).
    TextureLoad,
    /// `texcrd` in ps_1_4, the table name elsewhere.
    TextureCoordinate,
}

/// What an instruction's slots count as in fxc's
/// `approximately N instruction slots used (T texture, A arithmetic)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotClass {
    /// Declarations and definitions: no slot.
    Setup,
    Arithmetic,
    Texture,
    FlowControl,
}

/// One row of the opcode table.
#[derive(Clone, Copy, Debug)]
pub struct OpcodeInfo {
    pub opcode: Opcode,
    pub name: &'static str,
    pub layout: Layout,
    pub naming: Naming,
    /// Instruction slots in a vertex shader (models 2 and 3; see
    /// [`OpcodeInfo::slots`] for model 1).
    pub vertex_slots: u8,
    /// Instruction slots in a pixel shader.
    pub pixel_slots: u8,
    pub class: SlotClass,
    /// Opens a block: what follows is printed one level deeper.
    pub opens_block: bool,
    /// Closes a block: printed one level shallower.
    pub closes_block: bool,
}

macro_rules! opcode_table {
    ($($num:literal $id:ident $name:literal $layout:expr, $naming:ident $vs:literal $ps:literal $class:ident $open:literal $close:literal;)*) => {
        /// A Direct3D 9 opcode; the discriminant is its number in the token.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u16)]
        pub enum Opcode {
            $($id = $num,)*
        }

        /// Every opcode the decoder accepts (comments and the end token are
        /// not instructions and are handled by the program reader).
        pub static OPCODES: &[OpcodeInfo] = &[
            $(OpcodeInfo {
                opcode: Opcode::$id,
                name: $name,
                layout: {
                    #[allow(unused_imports)]
                    use Layout::*;
                    $layout
                },
                naming: Naming::$naming,
                vertex_slots: $vs,
                pixel_slots: $ps,
                class: SlotClass::$class,
                opens_block: $open,
                closes_block: $close,
            },)*
        ];
    };
}

const fn op(destination: bool, sources: u8) -> Layout {
    Layout::Regular {
        destination,
        sources,
    }
}

// Slot counts follow the instruction tables of Microsoft's shader model 2
// assembly reference (vs_2_0/vs_2_x, ps_2_0/ps_2_x); fxc's "approximately N
// instruction slots used" adds these up. Model 1 vertex differences are in
// `OpcodeInfo::slots`. The corpus confirms the one-slot arithmetic opcodes,
// `texld` (one texture slot) and the slot-free `dcl`/`def`; `nrm` (3) agrees
// with a published fxc ps_2_x listing; the other counts are the reference's.
opcode_table! {
    0    Nop          "nop"          op(false, 0), Plain             1 1 Arithmetic  false false;
    1    Mov          "mov"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    2    Add          "add"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    3    Sub          "sub"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    4    Mad          "mad"          op(true, 3),  Plain             1 1 Arithmetic  false false;
    5    Mul          "mul"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    6    Rcp          "rcp"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    7    Rsq          "rsq"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    8    Dp3          "dp3"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    9    Dp4          "dp4"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    10   Min          "min"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    11   Max          "max"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    12   Slt          "slt"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    13   Sge          "sge"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    14   Exp          "exp"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    15   Log          "log"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    16   Lit          "lit"          op(true, 1),  Plain             3 3 Arithmetic  false false;
    17   Dst          "dst"          op(true, 2),  Plain             1 1 Arithmetic  false false;
    18   Lrp          "lrp"          op(true, 3),  Plain             2 2 Arithmetic  false false;
    19   Frc          "frc"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    20   M4x4         "m4x4"         op(true, 2),  Plain             4 4 Arithmetic  false false;
    21   M4x3         "m4x3"         op(true, 2),  Plain             3 3 Arithmetic  false false;
    22   M3x4         "m3x4"         op(true, 2),  Plain             4 4 Arithmetic  false false;
    23   M3x3         "m3x3"         op(true, 2),  Plain             3 3 Arithmetic  false false;
    24   M3x2         "m3x2"         op(true, 2),  Plain             2 2 Arithmetic  false false;
    25   Call         "call"         op(false, 1), Plain             2 2 FlowControl false false;
    26   CallNz       "callnz"       op(false, 2), Plain             3 3 FlowControl false false;
    27   Loop         "loop"         op(false, 2), Plain             3 3 FlowControl true  false;
    28   Ret          "ret"          op(false, 0), Plain             1 1 FlowControl false false;
    29   EndLoop      "endloop"      op(false, 0), Plain             2 2 FlowControl false true;
    30   Label        "label"        op(false, 1), Plain             0 0 FlowControl false false;
    31   Dcl          "dcl"          Declaration,  Plain             0 0 Setup       false false;
    32   Pow          "pow"          op(true, 2),  Plain             3 3 Arithmetic  false false;
    33   Crs          "crs"          op(true, 2),  Plain             2 2 Arithmetic  false false;
    34   Sgn          "sgn"          op(true, 3),  Plain             3 3 Arithmetic  false false;
    35   Abs          "abs"          op(true, 1),  Plain             1 1 Arithmetic  false false;
    36   Nrm          "nrm"          op(true, 1),  Plain             3 3 Arithmetic  false false;
    37   SinCos       "sincos"       op(true, 3),  Plain             8 8 Arithmetic  false false;
    38   Rep          "rep"          op(false, 1), Plain             3 3 FlowControl true  false;
    39   EndRep       "endrep"       op(false, 0), Plain             2 2 FlowControl false true;
    40   If           "if"           op(false, 1), Plain             3 3 FlowControl true  false;
    41   IfC          "if"           op(false, 2), Comparison        3 3 FlowControl true  false;
    42   Else         "else"         op(false, 0), Plain             1 1 FlowControl true  true;
    43   EndIf        "endif"        op(false, 0), Plain             1 1 FlowControl false true;
    44   Break        "break"        op(false, 0), Plain             1 1 FlowControl false false;
    45   BreakC       "break"        op(false, 2), Comparison        3 3 FlowControl false false;
    46   MovA         "mova"         op(true, 1),  Plain             1 1 Arithmetic  false false;
    47   DefB         "defb"         DefineBool,   Plain             0 0 Setup       false false;
    48   DefI         "defi"         DefineInt,    Plain             0 0 Setup       false false;
    64   TexCoord     "texcoord"     op(true, 0),  TextureCoordinate 1 1 Texture     false false;
    65   TexKill      "texkill"      op(true, 0),  Plain             1 1 Texture     false false;
    66   Tex          "texld"        op(true, 0),  TextureLoad       1 1 Texture     false false;
    67   TexBem       "texbem"       op(true, 1),  Plain             1 1 Texture     false false;
    68   TexBemL      "texbeml"      op(true, 1),  Plain             1 1 Texture     false false;
    69   TexReg2Ar    "texreg2ar"    op(true, 1),  Plain             1 1 Texture     false false;
    70   TexReg2Gb    "texreg2gb"    op(true, 1),  Plain             1 1 Texture     false false;
    71   TexM3x2Pad   "texm3x2pad"   op(true, 1),  Plain             1 1 Texture     false false;
    72   TexM3x2Tex   "texm3x2tex"   op(true, 1),  Plain             1 1 Texture     false false;
    73   TexM3x3Pad   "texm3x3pad"   op(true, 1),  Plain             1 1 Texture     false false;
    74   TexM3x3Tex   "texm3x3tex"   op(true, 1),  Plain             1 1 Texture     false false;
    76   TexM3x3Spec  "texm3x3spec"  op(true, 2),  Plain             1 1 Texture     false false;
    77   TexM3x3VSpec "texm3x3vspec" op(true, 1),  Plain             1 1 Texture     false false;
    78   ExpP         "expp"         op(true, 1),  Plain             1 1 Arithmetic  false false;
    79   LogP         "logp"         op(true, 1),  Plain             1 1 Arithmetic  false false;
    80   Cnd          "cnd"          op(true, 3),  Plain             1 1 Arithmetic  false false;
    81   Def          "def"          DefineFloat,  Plain             0 0 Setup       false false;
    82   TexReg2Rgb   "texreg2rgb"   op(true, 1),  Plain             1 1 Texture     false false;
    83   TexDp3Tex    "texdp3tex"    op(true, 1),  Plain             1 1 Texture     false false;
    84   TexM3x2Depth "texm3x2depth" op(true, 1),  Plain             1 1 Texture     false false;
    85   TexDp3       "texdp3"       op(true, 1),  Plain             1 1 Texture     false false;
    86   TexM3x3      "texm3x3"      op(true, 1),  Plain             1 1 Texture     false false;
    87   TexDepth     "texdepth"     op(true, 0),  Plain             1 1 Texture     false false;
    88   Cmp          "cmp"          op(true, 3),  Plain             1 1 Arithmetic  false false;
    89   Bem          "bem"          op(true, 2),  Plain             2 2 Arithmetic  false false;
    90   Dp2Add       "dp2add"       op(true, 3),  Plain             2 2 Arithmetic  false false;
    91   Dsx          "dsx"          op(true, 1),  Plain             2 2 Arithmetic  false false;
    92   Dsy          "dsy"          op(true, 1),  Plain             2 2 Arithmetic  false false;
    93   TexLdd       "texldd"       op(true, 4),  Plain             3 3 Texture     false false;
    94   SetP         "setp"         op(true, 2),  Comparison        1 1 FlowControl false false;
    95   TexLdl       "texldl"       op(true, 2),  Plain             2 2 Texture     false false;
    96   BreakP       "breakp"       op(false, 1), Plain             3 3 FlowControl false false;
    65533 Phase       "phase"        op(false, 0), Plain             0 0 Setup       false false;
}

/// The opcode of comment tokens (`0xFFFE`, length in bits 16..31).
pub const COMMENT_OPCODE: u16 = 0xFFFE;
/// The end token of every program.
pub const END_TOKEN: u32 = 0x0000_FFFF;

impl Opcode {
    /// The table row of this opcode.
    pub fn info(self) -> &'static OpcodeInfo {
        OPCODES
            .iter()
            .find(|row| row.opcode == self)
            .expect("every Opcode variant has a table row")
    }

    /// The opcode with number `number`, if there is one.
    pub fn from_number(number: u16) -> Option<Opcode> {
        OPCODES
            .iter()
            .find(|row| row.opcode as u16 == number)
            .map(|row| row.opcode)
    }
}

impl OpcodeInfo {
    /// Instruction slots this opcode takes in a shader of the given stage and
    /// major version. Vertex shader model 1 counts the macro-like `exp`,
    /// `log` (10 slots) and `frc` (3) differently and `lit` as one slot.
    pub fn slots(&self, pixel: bool, major: u8) -> u32 {
        if pixel {
            return u32::from(self.pixel_slots);
        }
        if major < 2 {
            match self.opcode {
                Opcode::Exp | Opcode::Log => return 10,
                Opcode::Frc => return 3,
                Opcode::Lit => return 1,
                _ => {}
            }
        }
        u32::from(self.vertex_slots)
    }
}

/// How the registers of one file are named in a listing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegisterNaming {
    /// A prefix and the register number (`r3`, `c12`).
    Numbered(&'static str),
    /// A prefix and the number plus a fixed offset (`c2048` for CONST2 0).
    Offset(&'static str, u32),
    /// Names by register number (`oPos`, `oFog`, `oPts`); other numbers are
    /// invalid.
    Named(&'static [&'static str]),
    /// The address register `a#` in vertex shaders, the texture register `t#`
    /// in pixel shaders (one register type, two meanings).
    AddressOrTexture,
    /// `oT#` before vertex shader model 3, `o#` in vs_3_0.
    TextureOrOutput,
}

/// One row of the register-type table.
#[derive(Clone, Copy, Debug)]
pub struct RegisterFileInfo {
    pub file: RegisterFile,
    pub naming: RegisterNaming,
}

macro_rules! register_table {
    ($($num:literal $id:ident $naming:expr;)*) => {
        /// A Direct3D 9 register type; the discriminant is the 5-bit number
        /// split over bits 28..31 and 11..13 of a parameter token.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum RegisterFile {
            $($id = $num,)*
        }

        /// Every register type the decoder accepts.
        pub static REGISTER_FILES: &[RegisterFileInfo] = &[
            $(RegisterFileInfo {
                file: RegisterFile::$id,
                naming: {
                    #[allow(unused_imports)]
                    use RegisterNaming::*;
                    $naming
                },
            },)*
        ];
    };
}

register_table! {
    0  Temp            Numbered("r");
    1  Input           Numbered("v");
    2  Const           Numbered("c");
    3  AddressTexture  AddressOrTexture;
    4  RasterizerOut   Named(&["oPos", "oFog", "oPts"]);
    5  AttributeOut    Numbered("oD");
    6  TexCoordOut     TextureOrOutput;
    7  ConstInt        Numbered("i");
    8  ColorOut        Numbered("oC");
    9  DepthOut        Named(&["oDepth"]);
    10 Sampler         Numbered("s");
    11 Const2          Offset("c", 2048);
    12 Const3          Offset("c", 4096);
    13 Const4          Offset("c", 6144);
    14 ConstBool       Numbered("b");
    15 Loop            Named(&["aL"]);
    17 Misc            Named(&["vPos", "vFace"]);
    18 Label           Numbered("l");
    19 Predicate       Numbered("p");
}

impl RegisterFile {
    /// The table row of this register file.
    pub fn info(self) -> &'static RegisterFileInfo {
        REGISTER_FILES
            .iter()
            .find(|row| row.file == self)
            .expect("every RegisterFile variant has a table row")
    }

    /// The register file with type number `number`, if there is one.
    pub fn from_number(number: u8) -> Option<RegisterFile> {
        REGISTER_FILES
            .iter()
            .find(|row| row.file as u8 == number)
            .map(|row| row.file)
    }
}

/// One row of the source-modifier table: how the modifier wraps a register
/// in the listing (`-r0`, `r0_bx2`, `1-r0`, `-r0_abs`, `!b0`).
#[derive(Clone, Copy, Debug)]
pub struct SourceModifierInfo {
    pub modifier: SourceModifier,
    pub prefix: &'static str,
    pub suffix: &'static str,
}

macro_rules! source_modifier_table {
    ($($num:literal $id:ident $prefix:literal $suffix:literal;)*) => {
        /// A source modifier (bits 24..28 of a source token).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum SourceModifier {
            $($id = $num,)*
        }

        /// Every source modifier the decoder accepts.
        pub static SOURCE_MODIFIERS: &[SourceModifierInfo] = &[
            $(SourceModifierInfo {
                modifier: SourceModifier::$id,
                prefix: $prefix,
                suffix: $suffix,
            },)*
        ];
    };
}

source_modifier_table! {
    0  None          ""   "";
    1  Negate        "-"  "";
    2  Bias          ""   "_bias";
    3  BiasNegate    "-"  "_bias";
    4  Sign          ""   "_bx2";
    5  SignNegate    "-"  "_bx2";
    6  Complement    "1-" "";
    7  Times2        ""   "_x2";
    8  Times2Negate  "-"  "_x2";
    9  DivideByZ     ""   "_dz";
    10 DivideByW     ""   "_dw";
    11 Abs           ""   "_abs";
    12 AbsNegate     "-"  "_abs";
    13 Not           "!"  "";
}

impl SourceModifier {
    /// The table row of this modifier.
    pub fn info(self) -> &'static SourceModifierInfo {
        SOURCE_MODIFIERS
            .iter()
            .find(|row| row.modifier == self)
            .expect("every SourceModifier variant has a table row")
    }

    /// The modifier with number `number`, if there is one.
    pub fn from_number(number: u8) -> Option<SourceModifier> {
        SOURCE_MODIFIERS
            .iter()
            .find(|row| row.modifier as u8 == number)
            .map(|row| row.modifier)
    }
}

/// Declaration usages (`D3DDECLUSAGE`), indexed by number: `dcl_texcoord1`.
pub static DECL_USAGES: &[&str] = &[
    "position",
    "blendweight",
    "blendindices",
    "normal",
    "psize",
    "texcoord",
    "tangent",
    "binormal",
    "tessfactor",
    "positiont",
    "color",
    "fog",
    "depth",
    "sample",
];

/// Sampler texture types (bits 27..31 of a `dcl` token for an `s#`
/// register), indexed by number: `dcl_2d s0`. Type 0 declares no dimension.
pub static SAMPLER_TEXTURE_TYPES: &[&str] = &["", "1d", "2d", "cube", "volume"];

/// Comparisons of `if_*`, `break_*` and `setp_*` (instruction controls),
/// indexed by number; 0 is not a comparison.
pub static COMPARISONS: &[&str] = &["", "gt", "eq", "ge", "lt", "ne", "le"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opcode_numbers_are_unique_and_round_trip() {
        for row in OPCODES {
            let number = row.opcode as u16;
            assert_eq!(Opcode::from_number(number), Some(row.opcode));
            assert_eq!(row.opcode.info().name, row.name);
            assert_eq!(
                OPCODES
                    .iter()
                    .filter(|other| other.opcode as u16 == number)
                    .count(),
                1,
                "{} appears twice",
                row.name
            );
        }
        assert_eq!(Opcode::from_number(75), None, "reserved0 is not an opcode");
        assert_eq!(Opcode::from_number(COMMENT_OPCODE), None);
    }

    #[test]
    fn register_files_and_modifiers_round_trip_their_numbers() {
        for row in REGISTER_FILES {
            assert_eq!(RegisterFile::from_number(row.file as u8), Some(row.file));
        }
        assert_eq!(RegisterFile::from_number(16), None);
        assert_eq!(RegisterFile::from_number(20), None);
        for row in SOURCE_MODIFIERS {
            assert_eq!(
                SourceModifier::from_number(row.modifier as u8),
                Some(row.modifier)
            );
        }
        assert_eq!(SourceModifier::from_number(14), None);
    }

    #[test]
    fn model_one_vertex_shaders_count_exp_log_frc_differently() {
        let exp = Opcode::Exp.info();
        assert_eq!(exp.slots(false, 1), 10);
        assert_eq!(exp.slots(false, 2), 1);
        assert_eq!(exp.slots(true, 2), 1);
        assert_eq!(Opcode::Frc.info().slots(false, 1), 3);
        assert_eq!(Opcode::Nrm.info().slots(true, 2), 3);
        assert_eq!(Opcode::Dcl.info().slots(false, 2), 0);
    }
}
