//! The intermediate representation of a whole TGSI shader: plain data that the
//! assembler and the token decoder produce, and that the printer, the token
//! encoder, the validator and the executor consume.
//!
//! Statements are kept in source (token) order, because real shaders mix
//! properties, declarations and immediates (virgl writes declarations after
//! immediates) and the binary encoding must reproduce that order exactly.

use crate::enums::*;
use crate::opcode::{OpFlags, Opcode};
use bitflags::bitflags;

/// One channel of a register: x, y, z or w.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Component {
    X = 0,
    Y = 1,
    Z = 2,
    W = 3,
}

impl Component {
    pub const ALL: [Component; 4] = [Component::X, Component::Y, Component::Z, Component::W];

    pub fn from_u32(n: u32) -> Component {
        Self::ALL[(n & 3) as usize]
    }
    pub fn letter(self) -> char {
        ['x', 'y', 'z', 'w'][self as usize]
    }
    pub fn from_letter(c: char) -> Option<Component> {
        match c.to_ascii_lowercase() {
            'x' => Some(Component::X),
            'y' => Some(Component::Y),
            'z' => Some(Component::Z),
            'w' => Some(Component::W),
            _ => None,
        }
    }
}

bitflags! {
    /// A destination writemask or a declaration usage mask.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct WriteMask: u8 {
        const X = 1;
        const Y = 2;
        const Z = 4;
        const W = 8;
        const XYZW = 15;
    }
}

impl WriteMask {
    /// True when channel `c` is enabled.
    pub fn has(self, c: usize) -> bool {
        self.bits() & (1 << c) != 0
    }
    /// The mask letters in xyzw order, e.g. `"xz"`.
    pub fn letters(self) -> String {
        Component::ALL
            .iter()
            .filter(|c| self.has(**c as usize))
            .map(|c| c.letter())
            .collect()
    }
}

/// A source swizzle: which channel of the register feeds each of x, y, z, w.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Swizzle(pub [Component; 4]);

impl Swizzle {
    pub const IDENTITY: Swizzle = Swizzle([Component::X, Component::Y, Component::Z, Component::W]);

    pub fn replicate(c: Component) -> Swizzle {
        Swizzle([c; 4])
    }
    pub fn is_identity(self) -> bool {
        self == Self::IDENTITY
    }
    pub fn get(self, c: usize) -> Component {
        self.0[c]
    }
}

impl Default for Swizzle {
    fn default() -> Self {
        Self::IDENTITY
    }
}

/// The register an indirect index reads its offset from, e.g. `ADDR[0].x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IndirectAddr {
    pub file: File,
    pub index: i32,
    pub component: Component,
    /// ARRAY id the access is restricted to (0 = the whole file).
    pub array_id: u32,
}

/// One bracket of a register reference: `[5]` or `[ADDR[0].x+5]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Index {
    /// The constant part (the whole index when direct, the offset when indirect).
    pub offset: i32,
    pub indirect: Option<IndirectAddr>,
}

impl Index {
    pub fn direct(offset: i32) -> Index {
        Index {
            offset,
            indirect: None,
        }
    }
}

/// A register reference: file, index and optional 2-D (dimension) index.
/// For `CONST[1][4]` the dimension is 1 and the index 4.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Register {
    pub file: File,
    pub index: Index,
    pub dimension: Option<Index>,
}

impl Register {
    pub fn new(file: File, index: i32) -> Register {
        Register {
            file,
            index: Index::direct(index),
            dimension: None,
        }
    }
}

/// A destination operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DstOperand {
    pub reg: Register,
    pub write_mask: WriteMask,
}

/// A source operand with its swizzle and modifiers. `|x|` is applied before `-`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SrcOperand {
    pub reg: Register,
    pub swizzle: Swizzle,
    pub negate: bool,
    pub absolute: bool,
}

impl SrcOperand {
    pub fn new(reg: Register) -> SrcOperand {
        SrcOperand {
            reg,
            swizzle: Swizzle::IDENTITY,
            negate: false,
            absolute: false,
        }
    }
}

/// A texel offset operand: `IMM[0].xyz`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TexOffset {
    pub file: File,
    pub index: i32,
    pub swizzle: [Component; 3],
}

/// The texture token of an instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TextureInfo {
    pub target: TextureTarget,
    /// Raw 3-bit return type field (5 = unknown, the default).
    pub return_type: u8,
    pub offsets: Vec<TexOffset>,
}

bitflags! {
    /// Memory access qualifiers of LOAD/STORE/atomics.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct MemQualifier: u8 {
        const COHERENT = 1;
        const RESTRICT = 2;
        const VOLATILE = 4;
        const STREAM_CACHE_POLICY = 8;
    }
}

impl MemQualifier {
    pub const NAMES: [(MemQualifier, &'static str); 4] = [
        (MemQualifier::COHERENT, "COHERENT"),
        (MemQualifier::RESTRICT, "RESTRICT"),
        (MemQualifier::VOLATILE, "VOLATILE"),
        (MemQualifier::STREAM_CACHE_POLICY, "STREAM_CACHE_POLICY"),
    ];
}

/// The memory token of an instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MemoryInfo {
    pub qualifier: MemQualifier,
    /// Image target; BUFFER (0) means none was given.
    pub target: TextureTarget,
    pub format: PipeFormat,
}

impl Default for MemoryInfo {
    fn default() -> Self {
        MemoryInfo {
            qualifier: MemQualifier::empty(),
            target: TextureTarget::Buffer,
            format: PipeFormat::NONE,
        }
    }
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instruction {
    pub opcode: Opcode,
    pub saturate: bool,
    pub precise: bool,
    pub dst: Vec<DstOperand>,
    pub src: Vec<SrcOperand>,
    /// Jump label as written (an instruction index); executors compute their
    /// own targets from the block structure instead.
    pub label: Option<u32>,
    pub texture: Option<TextureInfo>,
    pub memory: Option<MemoryInfo>,
}

impl Instruction {
    /// An instruction with the texture and memory tokens the assembler gives
    /// this opcode by default (texture target UNKNOWN for the SAMPLE family).
    pub fn new(opcode: Opcode, dst: Vec<DstOperand>, src: Vec<SrcOperand>) -> Instruction {
        let flags = opcode.flags();
        let texture = (flags.intersects(OpFlags::TEX | OpFlags::SAMPLE)).then(|| TextureInfo {
            target: TextureTarget::Unknown,
            return_type: 5,
            offsets: Vec::new(),
        });
        let memory = flags.contains(OpFlags::MEMORY).then(MemoryInfo::default);
        Instruction {
            opcode,
            saturate: false,
            precise: false,
            dst,
            src,
            label: None,
            texture,
            memory,
        }
    }
}

/// Semantic of a declaration: name, index and GS output streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Semantic {
    pub name: SemanticName,
    pub index: u32,
    /// Stream of each channel (GS outputs), 2 bits each.
    pub streams: [u8; 4],
}

/// Interpolation of a fragment input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Interp {
    pub mode: InterpMode,
    pub location: InterpLocation,
    /// CYLWRAP bits X=1 Y=2 Z=4 W=8.
    pub cylindrical_wrap: u8,
}

/// What an `IMAGE` declaration says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ImageDecl {
    pub target: TextureTarget,
    pub format: PipeFormat,
    pub raw: bool,
    pub writable: bool,
}

/// What an `SVIEW` declaration says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SamplerViewDecl {
    pub target: TextureTarget,
    pub return_types: [ReturnType; 4],
}

/// One declaration `DCL FILE[first..last] ...`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Declaration {
    pub file: File,
    pub first: u32,
    pub last: u32,
    /// 2-D index (`DCL CONST[1][0..3]` has dimension 1).
    pub dimension: Option<u32>,
    pub usage_mask: WriteMask,
    pub array_id: Option<u32>,
    pub local: bool,
    pub semantic: Option<Semantic>,
    pub interp: Option<Interp>,
    pub invariant: bool,
    /// BUFFER ATOMIC.
    pub atomic: bool,
    pub mem_type: MemType,
    pub image: Option<ImageDecl>,
    pub sampler_view: Option<SamplerViewDecl>,
}

impl Declaration {
    pub fn new(file: File, first: u32, last: u32) -> Declaration {
        Declaration {
            file,
            first,
            last,
            dimension: None,
            usage_mask: WriteMask::XYZW,
            array_id: None,
            local: false,
            semantic: None,
            interp: None,
            invariant: false,
            atomic: false,
            mem_type: MemType::Global,
            image: None,
            sampler_view: None,
        }
    }
    /// True when `index` lies in the declared range.
    pub fn contains(&self, index: i64) -> bool {
        index >= self.first as i64 && index <= self.last as i64
    }
}

/// An immediate: type and raw 32-bit words (64-bit values as low, high).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Immediate {
    pub ty: ImmType,
    pub words: Vec<u32>,
}

/// `PROPERTY NAME value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Property {
    pub name: PropertyName,
    pub value: u32,
}

/// One statement, in token order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Statement {
    Property(Property),
    Declaration(Declaration),
    Immediate(Immediate),
    Instruction(Instruction),
}

/// A whole shader.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shader {
    pub processor: Processor,
    pub statements: Vec<Statement>,
}

impl Shader {
    pub fn new(processor: Processor) -> Shader {
        Shader {
            processor,
            statements: Vec::new(),
        }
    }
    pub fn instructions(&self) -> impl Iterator<Item = &Instruction> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Instruction(i) => Some(i),
            _ => None,
        })
    }
    pub fn declarations(&self) -> impl Iterator<Item = &Declaration> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Declaration(d) => Some(d),
            _ => None,
        })
    }
    pub fn immediates(&self) -> impl Iterator<Item = &Immediate> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Immediate(i) => Some(i),
            _ => None,
        })
    }
    pub fn properties(&self) -> impl Iterator<Item = &Property> {
        self.statements.iter().filter_map(|s| match s {
            Statement::Property(p) => Some(p),
            _ => None,
        })
    }
    /// The value of a property, if the shader sets it (the last one wins).
    pub fn property(&self, name: PropertyName) -> Option<u32> {
        self.properties()
            .filter(|p| p.name == name)
            .map(|p| p.value)
            .last()
    }
}

/// A byte range in a source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
}

/// Where each statement and operand came from in the source text; kept beside
/// the IR so that IR equality ignores positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceMap {
    /// One span per statement.
    pub statements: Vec<Span>,
    /// Per statement, one span per operand (instructions: dst then src).
    pub operands: Vec<Vec<Span>>,
}
