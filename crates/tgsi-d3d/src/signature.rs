//! Input, output and patch-constant signatures (`ISGN`, `ISG1`, `OSGN`,
//! `OSG5`, `OSG1`, `PCSG`, `PSG1`): decode, encode byte for byte, build from
//! data, and print fxc's signature tables.
//!
//! Payload: element count, the offset of the element array (always 8), the
//! elements, then a pool of NUL-terminated names (each distinct name stored
//! once, in first-use order, the pool padded with 0xAB to 4 bytes). An element
//! is 24 bytes; `OSG5` puts a stream index first (28), the `*1` variants add a
//! stream first and a minimum precision last (32).

use super::DecodeError;
use super::blob::{Bytes, Writer, to_u32};
use super::container::FourCC;
use super::enums::{
    COMPONENT_NAMES, MinPrecision, ProgramType, RegisterFile, SystemValue, d3d_enum,
};

/// The seven signature chunk kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignatureKind {
    /// `ISGN`: inputs.
    Isgn,
    /// `ISG1`: inputs with stream and min precision.
    Isg1,
    /// `OSGN`: outputs.
    Osgn,
    /// `OSG5`: geometry-shader outputs with a stream.
    Osg5,
    /// `OSG1`: outputs with stream and min precision.
    Osg1,
    /// `PCSG`: patch constants.
    Pcsg,
    /// `PSG1`: patch constants with stream and min precision.
    Psg1,
}

/// Which pipeline side a signature describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureRole {
    /// Inputs.
    Input,
    /// Outputs.
    Output,
    /// Patch constants (hull-shader outputs, domain-shader inputs).
    PatchConstant,
}

/// One row of [`KINDS`].
struct KindRow {
    kind: SignatureKind,
    tag: [u8; 4],
    role: SignatureRole,
    element_size: usize,
    has_stream: bool,
    has_min_precision: bool,
}

/// The signature kinds: tag, role, element size, stream and min-precision words.
const KINDS: [KindRow; 7] = {
    use SignatureKind as K;
    use SignatureRole::{Input, Output, PatchConstant};
    const fn row(
        kind: SignatureKind,
        tag: &[u8; 4],
        role: SignatureRole,
        element_size: usize,
        has_stream: bool,
        has_min_precision: bool,
    ) -> KindRow {
        KindRow {
            kind,
            tag: *tag,
            role,
            element_size,
            has_stream,
            has_min_precision,
        }
    }
    [
        row(K::Isgn, b"ISGN", Input, 24, false, false),
        row(K::Isg1, b"ISG1", Input, 32, true, true),
        row(K::Osgn, b"OSGN", Output, 24, false, false),
        row(K::Osg5, b"OSG5", Output, 28, true, false),
        row(K::Osg1, b"OSG1", Output, 32, true, true),
        row(K::Pcsg, b"PCSG", PatchConstant, 24, false, false),
        row(K::Psg1, b"PSG1", PatchConstant, 32, true, true),
    ]
};

impl SignatureKind {
    fn row(self) -> &'static KindRow {
        KINDS.iter().find(|r| r.kind == self).unwrap_or(&KINDS[0])
    }

    /// The kinds of `role`, plain before stream and min-precision variants
    /// (the order a listing looks for them in).
    pub fn with_role(role: SignatureRole) -> impl Iterator<Item = SignatureKind> {
        KINDS.iter().filter(move |r| r.role == role).map(|r| r.kind)
    }

    /// The kind stored under `tag`, if it is a signature tag.
    pub fn from_tag(tag: FourCC) -> Option<SignatureKind> {
        KINDS.iter().find(|r| r.tag == tag.0).map(|r| r.kind)
    }

    /// The chunk tag.
    pub fn tag(self) -> FourCC {
        FourCC(self.row().tag)
    }

    /// Input, output or patch constant.
    pub fn role(self) -> SignatureRole {
        self.row().role
    }

    /// Bytes per element.
    pub fn element_size(self) -> usize {
        self.row().element_size
    }

    /// Whether elements start with a stream index.
    pub fn has_stream(self) -> bool {
        self.row().has_stream
    }

    /// Whether elements end with a minimum precision.
    pub fn has_min_precision(self) -> bool {
        self.row().has_min_precision
    }
}

d3d_enum! {
    /// `D3D_NAME`: the system value a signature element stores, named as the
    /// listing's `SysValue` column names it. 0-10 are the numbers of
    /// [`SystemValue`] (the declaration's name token); from 11 the two
    /// numberings part: a signature has one value per kind of tessellation
    /// factor (the semantic index tells the edges apart) where the token has
    /// one per factor, and 64-69 name pixel-shader outputs no declaration
    /// names.
    SignatureSystemValue {
        None = 0 "NONE",
        Position = 1 "POS",
        ClipDistance = 2 "CLIPDST",
        CullDistance = 3 "CULLDST",
        RenderTargetArrayIndex = 4 "RTINDEX",
        ViewportArrayIndex = 5 "VPINDEX",
        VertexId = 6 "VERTID",
        PrimitiveId = 7 "PRIMID",
        InstanceId = 8 "INSTID",
        IsFrontFace = 9 "FFACE",
        SampleIndex = 10 "SAMPLE",
        QuadEdgeTessFactor = 11 "QUADEDGE",
        QuadInsideTessFactor = 12 "QUADINT",
        TriEdgeTessFactor = 13 "TRIEDGE",
        TriInsideTessFactor = 14 "TRIINT",
        LineDetailTessFactor = 15 "LINEDET",
        LineDensityTessFactor = 16 "LINEDEN",
        /// `SV_Target` (the chunk stores 0; the listing shows pixel-shader
        /// outputs with a register as targets)
        Target = 64 "TARGET",
        Depth = 65 "DEPTH",
        Coverage = 66 "COVERAGE",
        DepthGreaterEqual = 67 "DEPTHGE",
        DepthLessEqual = 68 "DEPTHLE",
        StencilRef = 69 "STENCILREF",
    }
}

d3d_enum! {
    /// `D3D_REGISTER_COMPONENT_TYPE`, named as the listing's `Format` column
    /// names it.
    ComponentType {
        Unknown = 0 "unknown",
        Uint = 1 "uint",
        Sint = 2 "int",
        Float = 3 "float",
    }
}

/// A signature element's `SV_` semantic, semantic index, stored `D3D_NAME`
/// and component type for a system value a declaration names: the one
/// mapping from the token's numbering to the signature's.
pub fn declared_system_value(
    sv: SystemValue,
) -> (&'static str, u32, SignatureSystemValue, ComponentType) {
    use ComponentType::{Float, Uint};
    use SignatureSystemValue as S;
    use SystemValue::*;
    match sv {
        Undefined => ("TEXCOORD", 0, S::None, Float),
        Position => ("SV_Position", 0, S::Position, Float),
        ClipDistance => ("SV_ClipDistance", 0, S::ClipDistance, Float),
        CullDistance => ("SV_CullDistance", 0, S::CullDistance, Float),
        RenderTargetArrayIndex => (
            "SV_RenderTargetArrayIndex",
            0,
            S::RenderTargetArrayIndex,
            Uint,
        ),
        ViewportArrayIndex => ("SV_ViewportArrayIndex", 0, S::ViewportArrayIndex, Uint),
        VertexId => ("SV_VertexID", 0, S::VertexId, Uint),
        PrimitiveId => ("SV_PrimitiveID", 0, S::PrimitiveId, Uint),
        InstanceId => ("SV_InstanceID", 0, S::InstanceId, Uint),
        IsFrontFace => ("SV_IsFrontFace", 0, S::IsFrontFace, Uint),
        SampleIndex => ("SV_SampleIndex", 0, S::SampleIndex, Uint),
        FinalQuadUeq0EdgeTessFactor => ("SV_TessFactor", 0, S::QuadEdgeTessFactor, Float),
        FinalQuadVeq0EdgeTessFactor => ("SV_TessFactor", 1, S::QuadEdgeTessFactor, Float),
        FinalQuadUeq1EdgeTessFactor => ("SV_TessFactor", 2, S::QuadEdgeTessFactor, Float),
        FinalQuadVeq1EdgeTessFactor => ("SV_TessFactor", 3, S::QuadEdgeTessFactor, Float),
        FinalQuadUInsideTessFactor => ("SV_InsideTessFactor", 0, S::QuadInsideTessFactor, Float),
        FinalQuadVInsideTessFactor => ("SV_InsideTessFactor", 1, S::QuadInsideTessFactor, Float),
        FinalTriUeq0EdgeTessFactor => ("SV_TessFactor", 0, S::TriEdgeTessFactor, Float),
        FinalTriVeq0EdgeTessFactor => ("SV_TessFactor", 1, S::TriEdgeTessFactor, Float),
        FinalTriWeq0EdgeTessFactor => ("SV_TessFactor", 2, S::TriEdgeTessFactor, Float),
        FinalTriInsideTessFactor => ("SV_InsideTessFactor", 0, S::TriInsideTessFactor, Float),
        FinalLineDetailTessFactor => ("SV_TessFactor", 1, S::LineDetailTessFactor, Float),
        FinalLineDensityTessFactor => ("SV_TessFactor", 0, S::LineDensityTessFactor, Float),
    }
}

/// A pixel-shader output without a register (`oDepth`, `oMask` …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SpecialOutput {
    /// Its register file (whose name the listing's `Register` column shows).
    pub file: RegisterFile,
    /// Its `SV_` semantic.
    pub semantic: &'static str,
    /// The system value the listing shows (the chunk stores 0).
    pub system_value: SignatureSystemValue,
    /// Its component type.
    pub component: ComponentType,
}

/// Every pixel-shader output without a register.
pub const SPECIAL_OUTPUTS: [SpecialOutput; 5] = {
    use ComponentType::{Float, Uint};
    use RegisterFile as F;
    use SignatureSystemValue as S;
    const fn out(
        file: RegisterFile,
        semantic: &'static str,
        system_value: SignatureSystemValue,
        component: ComponentType,
    ) -> SpecialOutput {
        SpecialOutput {
            file,
            semantic,
            system_value,
            component,
        }
    }
    [
        out(F::OutputDepth, "SV_Depth", S::Depth, Float),
        out(F::OutputCoverageMask, "SV_Coverage", S::Coverage, Uint),
        out(
            F::OutputDepthGreaterEqual,
            "SV_DepthGreaterEqual",
            S::DepthGreaterEqual,
            Float,
        ),
        out(
            F::OutputDepthLessEqual,
            "SV_DepthLessEqual",
            S::DepthLessEqual,
            Float,
        ),
        out(F::OutputStencilRef, "SV_StencilRef", S::StencilRef, Uint),
    ]
};

impl SpecialOutput {
    /// The special output of a register file, if it is one.
    pub fn of_file(file: RegisterFile) -> Option<&'static SpecialOutput> {
        SPECIAL_OUTPUTS.iter().find(|o| o.file == file)
    }
    /// The special output with this semantic (any case).
    pub fn of_semantic(semantic: &str) -> Option<&'static SpecialOutput> {
        SPECIAL_OUTPUTS
            .iter()
            .find(|o| o.semantic.eq_ignore_ascii_case(semantic))
    }
}

/// Column name of a system value (`NONE`, `POS`, ...), or its number.
pub fn system_value_name(value: u32) -> String {
    SignatureSystemValue::from_u32(value)
        .map_or_else(|| value.to_string(), |v| v.name().to_string())
}

/// Name of a component type, or its number.
pub fn component_type_name(value: u32) -> String {
    ComponentType::from_u32(value).map_or_else(|| value.to_string(), |t| t.name().to_string())
}

/// Name of a signature's minimum precision (`D3D_MIN_PRECISION`, the
/// numbering of [`MinPrecision`]): the operand annotation's spelling, and
/// `default` for 0 (where the listing shows the component type instead).
pub fn min_precision_name(value: u32) -> String {
    match MinPrecision::from_u32(value) {
        Some(MinPrecision::Default) => "default".to_string(),
        Some(p) => p.name().to_string(),
        None => value.to_string(),
    }
}

/// A register of `0xFFFFFFFF` marks an element without a register
/// (`oDepth`, `oMask`, a GS's `SV_PrimitiveID` input ...).
pub const NO_REGISTER: u32 = u32::MAX;

/// One signature element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureElement {
    /// Geometry-shader stream (only stored by `OSG5` and the `*1` kinds).
    pub stream: u32,
    /// Semantic name as written in HLSL (`SV_Position`, `TEXCOORD`).
    pub semantic_name: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// `D3D_NAME` value (see [`SignatureSystemValue`]).
    pub system_value: u32,
    /// `D3D_REGISTER_COMPONENT_TYPE` (see [`ComponentType`]).
    pub component_type: u32,
    /// Register number, or [`NO_REGISTER`].
    pub register: u32,
    /// Declared components (bit 0 = x).
    pub mask: u8,
    /// Inputs: the components the shader reads. Outputs: the components it
    /// never writes (the complement of the listing's `Used`).
    pub rw_mask: u8,
    /// The upper 16 bits of the mask word (always 0 from fxc; kept).
    pub mask_reserved: u16,
    /// `D3D_MIN_PRECISION` (only stored by the `*1` kinds).
    pub min_precision: u32,
}

impl SignatureElement {
    /// An element with stream 0, default precision and the given fields.
    pub fn new(
        semantic_name: &str,
        semantic_index: u32,
        system_value: u32,
        component_type: u32,
        register: u32,
        mask: u8,
        rw_mask: u8,
    ) -> SignatureElement {
        SignatureElement {
            stream: 0,
            semantic_name: semantic_name.to_string(),
            semantic_index,
            system_value,
            component_type,
            register,
            mask,
            rw_mask,
            mask_reserved: 0,
            min_precision: 0,
        }
    }
}

impl SignatureElement {
    /// The element of a register declared with system value `sv` (see
    /// [`declared_system_value`]).
    pub fn for_system_value(
        sv: SystemValue,
        register: u32,
        mask: u8,
        rw_mask: u8,
    ) -> SignatureElement {
        let (name, index, stored, component) = declared_system_value(sv);
        SignatureElement::new(
            name,
            index,
            stored.number(),
            component.number(),
            register,
            mask,
            rw_mask,
        )
    }
}

/// A decoded signature chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Which chunk it is.
    pub kind: SignatureKind,
    /// The elements, in chunk order.
    pub elements: Vec<SignatureElement>,
}

/// Offset of the element array fxc writes (right after count and offset).
const ELEMENTS_OFFSET: u32 = 8;

impl Signature {
    /// An empty signature of `kind`.
    pub fn new(kind: SignatureKind) -> Signature {
        Signature {
            kind,
            elements: Vec::new(),
        }
    }

    /// Decodes a payload (errors at payload-relative offsets).
    pub fn parse(kind: SignatureKind, payload: &[u8]) -> Result<Signature, DecodeError> {
        let b = Bytes::new(payload);
        let count = b.u32(0, "signature element count")? as usize;
        let first = b.u32(4, "signature element offset")? as usize;
        let size = kind.element_size();
        b.check_table(first, count, size, "signature elements")
            .map_err(|e| e.moved_to(0))?;
        let mut elements = Vec::with_capacity(count);
        for i in 0..count {
            let at = first + i * size;
            let words = b.u32s(at, size / 4, "signature element")?;
            let (stream, rest) = if kind.has_stream() {
                (words[0], &words[1..])
            } else {
                (0, &words[..])
            };
            let name_offset = rest[0] as usize;
            let semantic_name = b
                .cstr(name_offset, "semantic name")
                .map_err(|e| e.moved_to(at + 4 * usize::from(kind.has_stream())))?;
            let mask_word = rest[5];
            elements.push(SignatureElement {
                stream,
                semantic_name,
                semantic_index: rest[1],
                system_value: rest[2],
                component_type: rest[3],
                register: rest[4],
                mask: (mask_word & 0xff) as u8,
                rw_mask: ((mask_word >> 8) & 0xff) as u8,
                mask_reserved: (mask_word >> 16) as u16,
                min_precision: if kind.has_min_precision() { rest[6] } else { 0 },
            });
        }
        Ok(Signature { kind, elements })
    }

    /// Encodes the payload the way fxc lays it out.
    pub fn to_bytes(&self) -> Vec<u8> {
        let kind = self.kind;
        let mut w = Writer::new();
        w.u32(to_u32(self.elements.len()));
        w.u32(ELEMENTS_OFFSET);
        let pool_start = ELEMENTS_OFFSET as usize + self.elements.len() * kind.element_size();
        // Distinct names in first-use order.
        let mut pool: Vec<(&str, usize)> = Vec::new();
        let mut next = pool_start;
        let mut name_offsets = Vec::with_capacity(self.elements.len());
        for e in &self.elements {
            let at = match pool.iter().find(|(n, _)| *n == e.semantic_name) {
                Some(&(_, at)) => at,
                None => {
                    pool.push((&e.semantic_name, next));
                    let at = next;
                    next += e.semantic_name.len() + 1;
                    at
                }
            };
            name_offsets.push(at);
        }
        for (e, &name_at) in self.elements.iter().zip(&name_offsets) {
            if kind.has_stream() {
                w.u32(e.stream);
            }
            w.u32(to_u32(name_at));
            w.u32(e.semantic_index);
            w.u32(e.system_value);
            w.u32(e.component_type);
            w.u32(e.register);
            w.u32(
                u32::from(e.mask)
                    | (u32::from(e.rw_mask) << 8)
                    | (u32::from(e.mask_reserved) << 16),
            );
            if kind.has_min_precision() {
                w.u32(e.min_precision);
            }
        }
        for (name, _) in &pool {
            w.cstr(name);
        }
        w.align4();
        w.finish()
    }
}

/// `xyzw` with the missing components as spaces (the listing's mask columns).
pub fn mask_letters(mask: u8) -> String {
    COMPONENT_NAMES
        .iter()
        .enumerate()
        .map(|(i, &c)| if mask & (1 << i) != 0 { c } else { ' ' })
        .collect()
}

/// The program kind the signature tables depend on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageForTable {
    /// Pixel shader (outputs with a register are targets).
    Pixel,
    /// Hull shader (its patch constants are outputs).
    Hull,
    /// Any other stage.
    Other,
}

impl StageForTable {
    /// The table kind of a program type (`None`: no program chunk).
    pub fn of(program: Option<ProgramType>) -> StageForTable {
        match program {
            Some(ProgramType::Pixel) => StageForTable::Pixel,
            Some(ProgramType::Hull) => StageForTable::Hull,
            _ => StageForTable::Other,
        }
    }
}

/// The column layout of fxc's signature tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableStyle {
    /// fxc 9.29: a six-wide `Format` column.
    Fxc929,
    /// fxc 9.30 and 10.x: a seven-wide `Format` column.
    Fxc930,
}

impl Signature {
    /// The `// Name  Index ...` table rows as fxc prints them, each line
    /// ending in `'\n'`: the two heading lines, one row per element, and a
    /// closing `//` when there are elements (or the `// no Input` style line
    /// when there are none and `style` prints it).
    pub fn listing_table(&self, stage: StageForTable, style: TableStyle) -> String {
        let mut out = String::new();
        match style {
            TableStyle::Fxc929 => {
                out.push_str(
                    "// Name                 Index   Mask Register SysValue Format   Used\n",
                );
                out.push_str(
                    "// -------------------- ----- ------ -------- -------- ------ ------\n",
                );
            }
            TableStyle::Fxc930 => {
                out.push_str(
                    "// Name                 Index   Mask Register SysValue  Format   Used\n",
                );
                out.push_str(
                    "// -------------------- ----- ------ -------- -------- ------- ------\n",
                );
            }
        }
        let with_streams = self.elements.iter().any(|e| e.stream > 0);
        let role = self.kind.role();
        let is_output = role == SignatureRole::Output
            || (role == SignatureRole::PatchConstant && stage == StageForTable::Hull);
        let format_width = if style == TableStyle::Fxc929 { 6 } else { 7 };
        for e in &self.elements {
            let name = if with_streams {
                format!("m{}:{}", e.stream, e.semantic_name)
            } else {
                e.semantic_name.clone()
            };
            let format = if e.min_precision != 0 {
                min_precision_name(e.min_precision)
            } else {
                component_type_name(e.component_type)
            };
            let used = if is_output {
                e.mask & !e.rw_mask & 0xf
            } else {
                e.rw_mask & 0xf
            };
            if e.register == NO_REGISTER {
                let mut system_value = e.system_value;
                let register = match SpecialOutput::of_semantic(&e.semantic_name) {
                    Some(special) => {
                        if is_output && stage == StageForTable::Pixel {
                            system_value = special.system_value.number();
                        }
                        special.file.name()
                    }
                    None if e.system_value == SignatureSystemValue::PrimitiveId.number() => {
                        "primID"
                    }
                    None => "special",
                };
                let register = if register.len() > 8 {
                    format!("    {register}")
                } else {
                    register.to_string()
                };
                let used = if is_output {
                    e.rw_mask & e.mask == 0
                } else {
                    e.rw_mask != 0
                };
                out.push_str(&format!(
                    "// {name:<20} {:>5}   {:>4}{register:>9} {:>8} {format:>format_width$}   {:>4}\n",
                    e.semantic_index,
                    "N/A",
                    system_value_name(system_value),
                    if used { "YES" } else { "NO" },
                ));
            } else {
                let system_value = if is_output
                    && stage == StageForTable::Pixel
                    && self.kind.role() == SignatureRole::Output
                    && e.system_value == 0
                {
                    SignatureSystemValue::Target.number()
                } else {
                    e.system_value
                };
                out.push_str(&format!(
                    "// {name:<20} {:>5}   {} {:>8} {:>8} {format:>format_width$}   {}\n",
                    e.semantic_index,
                    mask_letters(e.mask),
                    e.register,
                    system_value_name(system_value),
                    mask_letters(used),
                ));
            }
        }
        if !self.elements.is_empty() {
            out.push_str("//\n");
        }
        out
    }
}

/// Mask bits from a mask column's letters (`xy`, `x z`, ...); `None` if the
/// text holds anything but `xyzw` in order.
pub fn mask_from_letters(text: &str) -> Option<u8> {
    super::ir::mask_from_letters(&text.replace(' ', ""))
}

/// `(component type, min precision)` of a `Format` column name.
pub fn format_from_name(name: &str) -> Option<(u32, u32)> {
    if let Some(t) = ComponentType::from_name(name) {
        return Some((t.number(), 0));
    }
    let precision = *MinPrecision::ALL
        .iter()
        .find(|p| p.name() == name && **p != MinPrecision::Default)?;
    let component = match precision {
        MinPrecision::Sint16 => ComponentType::Sint,
        MinPrecision::Uint16 => ComponentType::Uint,
        _ => ComponentType::Float,
    };
    Some((component.number(), precision.number()))
}

impl SignatureElement {
    /// Parses one row of an fxc signature table (`// SV_Target 0 xyzw 0
    /// TARGET float xyzw`), the inverse of [`Signature::listing_table`]:
    /// the stored system value, register and read/write mask are derived
    /// the way fxc stores them (pixel-shader targets and `oDepth`-style
    /// outputs store 0; outputs store the never-written components).
    /// `line_start` is the line's byte offset in `source`-relative terms;
    /// errors point at the offending column.
    pub fn from_listing_row(
        line: &str,
        line_start: usize,
        kind: SignatureKind,
        stage: StageForTable,
    ) -> Result<SignatureElement, tgsi_ir::diag::Diagnostic> {
        use tgsi_ir::diag::Diagnostic;
        use tgsi_ir::ir::Span;
        let mut tokens: Vec<(usize, &str)> = Vec::new();
        let mut start = None;
        for (i, c) in line
            .char_indices()
            .chain(std::iter::once((line.len(), ' ')))
        {
            match (c.is_whitespace(), start) {
                (true, Some(s)) => {
                    tokens.push((s, &line[s..i]));
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if tokens.first().is_some_and(|t| t.1 == "//") {
            tokens.remove(0);
        }
        let span = |t: (usize, &str)| Span::new(line_start + t.0, line_start + t.0 + t.1.len());
        let whole = Span::new(line_start, line_start + line.len());
        if tokens.len() < 6 || tokens.len() > 7 {
            return Err(Diagnostic::error("malformed signature row").with_primary(
                whole,
                "expected: name, index, mask, register, system value, format, used",
            ));
        }
        let bad = |t: (usize, &str), what: &str| {
            Diagnostic::error(format!("bad {what} `{}` in a signature row", t.1))
                .with_primary(span(t), what.to_string())
        };
        let (mut stream, mut name) = (0, tokens[0].1);
        if let Some((prefix, rest)) = name.split_once(':')
            && let Some(n) = prefix.strip_prefix('m').and_then(|n| n.parse::<u32>().ok())
        {
            stream = n;
            name = rest;
        }
        let semantic_index = tokens[1]
            .1
            .parse::<u32>()
            .map_err(|_| bad(tokens[1], "semantic index"))?;
        let no_register = tokens[2].1 == "N/A";
        let mask = if no_register {
            1
        } else {
            mask_from_letters(tokens[2].1).ok_or_else(|| bad(tokens[2], "mask"))?
        };
        let register = if no_register {
            NO_REGISTER
        } else {
            tokens[3]
                .1
                .parse::<u32>()
                .map_err(|_| bad(tokens[3], "register"))?
        };
        let listed = SignatureSystemValue::from_name(tokens[4].1)
            .ok_or_else(|| bad(tokens[4], "system value"))?
            .number();
        let (component_type, min_precision) =
            format_from_name(tokens[5].1).ok_or_else(|| bad(tokens[5], "format"))?;
        let role = kind.role();
        let is_output = role == SignatureRole::Output
            || (role == SignatureRole::PatchConstant && stage == StageForTable::Hull);
        // pixel-shader targets and special outputs store 0
        let system_value = if is_output
            && stage == StageForTable::Pixel
            && listed >= SignatureSystemValue::Target.number()
        {
            0
        } else {
            listed
        };
        let used_token = tokens.get(6).copied();
        let rw_mask = if no_register {
            let yes = match used_token.map(|t| t.1) {
                Some("YES") => true,
                Some("NO") | None => false,
                Some(_) => return Err(bad(used_token.unwrap_or((0, "")), "used flag")),
            };
            match (is_output, yes) {
                (true, true) => 0xf & !mask,
                (true, false) => 0xf,
                (false, true) => mask,
                (false, false) => 0,
            }
        } else {
            let used = match used_token {
                Some(t) => mask_from_letters(t.1).ok_or_else(|| bad(t, "used mask"))?,
                None => 0,
            };
            if is_output { 0xf & !used } else { used }
        };
        Ok(SignatureElement {
            stream,
            min_precision,
            ..SignatureElement::new(
                name,
                semantic_index,
                system_value,
                component_type,
                register,
                mask,
                rw_mask,
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hull shader's patch-constant signature from Mesa's d3d1x
    /// spikysphere sample (fxc 9.29): three TRIEDGE factors and one TRIINT,
    /// the shared name stored once.
    const PCSG: [u32; 35] = [
        4, 8, 0x68, 0, 13, 3, 0, 0xe01, 0x68, 1, 13, 3, 1, 0xe01, 0x68, 2, 13, 3, 2, 0xe01, 0x76,
        0, 14, 3, 3, 0xe01, 0x545f5653, 0x46737365, 0x6f746361, 0x56530072, 0x736e495f, 0x54656469,
        0x46737365, 0x6f746361, 0xabab0072,
    ];

    use crate::blob::le_bytes as bytes;

    #[test]
    fn patch_constant_signature_decodes_encodes_and_prints() {
        let raw = bytes(&PCSG);
        let sig = Signature::parse(SignatureKind::Pcsg, &raw).unwrap();
        assert_eq!(sig.elements.len(), 4);
        assert_eq!(sig.elements[3].semantic_name, "SV_InsideTessFactor");
        assert_eq!(sig.elements[2].semantic_index, 2);
        assert_eq!(sig.elements[0].rw_mask, 0xe);
        assert_eq!(sig.to_bytes(), raw);
        let table = sig.listing_table(StageForTable::Hull, TableStyle::Fxc929);
        let rows: Vec<&str> = table.lines().collect();
        assert_eq!(
            rows[2],
            "// SV_TessFactor            0   x           0  TRIEDGE  float   x   "
        );
        assert_eq!(
            rows[5],
            "// SV_InsideTessFactor      0   x           3   TRIINT  float   x   "
        );
        assert_eq!(rows[6], "//");
    }

    #[test]
    fn built_signature_with_streams_and_min_precision_round_trips() {
        let mut sig = Signature::new(SignatureKind::Osg1);
        let mut a = SignatureElement::new("SV_Position", 0, 1, 3, 0, 0xf, 0);
        a.stream = 1;
        let mut b = SignatureElement::new("TEXCOORD", 1, 0, 3, 2, 0x2, 0xd);
        b.min_precision = 2;
        sig.elements = vec![a, b];
        let raw = sig.to_bytes();
        assert_eq!(raw.len(), 8 + 2 * 32 + 12 + 9 + 3);
        let back = Signature::parse(SignatureKind::Osg1, &raw).unwrap();
        assert_eq!(back, sig);
        let table = back.listing_table(StageForTable::Other, TableStyle::Fxc930);
        assert!(
            table.contains(
                "// m1:SV_Position           0   xyzw        0      POS   float   xyzw\n"
            ),
            "{table}"
        );
        assert!(
            table.contains(
                "// m0:TEXCOORD              1    y          2     NONE min2_8f    y  \n"
            ),
            "{table}"
        );
    }

    #[test]
    fn pixel_outputs_show_targets_and_special_registers() {
        let mut sig = Signature::new(SignatureKind::Osgn);
        sig.elements = vec![
            SignatureElement::new("SV_Target", 0, 0, 3, 0, 0xf, 0),
            SignatureElement::new("SV_Depth", 0, 0, 3, NO_REGISTER, 1, 0xe),
            SignatureElement::new("SV_StencilRef", 0, 0, 1, NO_REGISTER, 1, 0xe),
        ];
        let t = sig.listing_table(StageForTable::Pixel, TableStyle::Fxc930);
        let rows: Vec<&str> = t.lines().collect();
        assert_eq!(
            rows[2],
            "// SV_Target                0   xyzw        0   TARGET   float   xyzw"
        );
        assert_eq!(
            rows[3],
            "// SV_Depth                 0    N/A   oDepth    DEPTH   float    YES"
        );
        assert_eq!(
            rows[4],
            "// SV_StencilRef            0    N/A    oStencilRef STENCILREF    uint    YES"
        );
    }

    #[test]
    fn listing_rows_parse_back_to_the_stored_fields() {
        let row = "// SV_Target                0   xyzw        0   TARGET   float   xyzw";
        let e =
            SignatureElement::from_listing_row(row, 100, SignatureKind::Osgn, StageForTable::Pixel)
                .unwrap();
        assert_eq!(e, SignatureElement::new("SV_Target", 0, 0, 3, 0, 0xf, 0));
        let row = "// SV_Depth                 0    N/A   oDepth    DEPTH   float    YES";
        let e =
            SignatureElement::from_listing_row(row, 0, SignatureKind::Osgn, StageForTable::Pixel)
                .unwrap();
        assert_eq!(
            e,
            SignatureElement::new("SV_Depth", 0, 0, 3, NO_REGISTER, 1, 0xe)
        );
        let row = "// m1:TEXCOORD              1    y          2     NONE min2_8f       ";
        let e =
            SignatureElement::from_listing_row(row, 0, SignatureKind::Osg1, StageForTable::Other)
                .unwrap();
        assert_eq!(
            (
                e.stream,
                e.mask,
                e.rw_mask,
                e.min_precision,
                e.component_type
            ),
            (1, 2, 0xf, 2, 3)
        );
        let row = "// TEXCOORD                 0   xy          1     NONE   float   x   ";
        let e =
            SignatureElement::from_listing_row(row, 0, SignatureKind::Isgn, StageForTable::Pixel)
                .unwrap();
        assert_eq!((e.mask, e.rw_mask), (3, 1));
        let err = SignatureElement::from_listing_row(
            "// A 0 xq 0 NONE float",
            40,
            SignatureKind::Isgn,
            StageForTable::Other,
        )
        .unwrap_err();
        assert_eq!(
            err.primary.as_ref().unwrap().span,
            tgsi_ir::ir::Span::new(47, 49)
        );
        assert!(err.message.contains("bad mask `xq`"), "{}", err.message);
        assert_eq!(mask_from_letters("yx"), None);
        assert_eq!(format_from_name("min16u"), Some((1, 5)));
    }

    #[test]
    fn declared_system_values_keep_the_numbers_both_tables_share() {
        // 0-10 have the same number in the token and in a signature
        for sv in SystemValue::ALL.iter().filter(|v| v.number() <= 10) {
            assert_eq!(declared_system_value(*sv).2.number(), sv.number(), "{sv}");
        }
        // the twelve tess factors fold into one signature value per kind
        assert_eq!(
            declared_system_value(SystemValue::FinalQuadVeq1EdgeTessFactor),
            (
                "SV_TessFactor",
                3,
                SignatureSystemValue::QuadEdgeTessFactor,
                ComponentType::Float
            )
        );
        assert_eq!(
            declared_system_value(SystemValue::FinalTriInsideTessFactor).2,
            SignatureSystemValue::TriInsideTessFactor
        );
        assert_eq!(system_value_name(13), "TRIEDGE");
        assert_eq!(system_value_name(70), "70");
        assert_eq!(
            SpecialOutput::of_semantic("sv_depth").map(|o| o.file.name()),
            Some("oDepth")
        );
        assert_eq!(
            SignatureKind::with_role(SignatureRole::Output).collect::<Vec<_>>(),
            [
                SignatureKind::Osgn,
                SignatureKind::Osg5,
                SignatureKind::Osg1
            ]
        );
        assert_eq!(min_precision_name(0), "default");
        assert_eq!(min_precision_name(2), "min2_8f");
    }

    #[test]
    fn malformed_signatures_report_offsets() {
        let e = Signature::parse(SignatureKind::Isgn, &[1, 0, 0]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(
            e.message.contains("signature element count"),
            "{}",
            e.message
        );
        // (byte changed, its new value, the error's offset, what it says)
        for (at, value, offset, says) in [
            (0, 200, 0, "200 records of 24 bytes at offset 8"),
            (8, 0xff, 8, "string offset 255 is outside"),
        ] {
            let mut raw = bytes(&PCSG);
            raw[at] = value;
            let e = Signature::parse(SignatureKind::Pcsg, &raw).unwrap_err();
            assert_eq!(e.offset, offset);
            assert!(e.message.contains(says), "{}", e.message);
        }
    }
}
