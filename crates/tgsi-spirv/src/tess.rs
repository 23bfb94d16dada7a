//! Tessellation shaders. A TESS_CTRL shader runs one invocation per output
//! control point (`TCS_VERTICES_OUT`, `OutputVertices`); its per-vertex
//! inputs `IN[v][r]` are copied into the `IN` register array as a geometry
//! shader's are (rows past the patch's control points read 0, as on the
//! machine). Its outputs are not copied at the end: every `OUT` access
//! goes to the output variables themselves, which the patch's invocations
//! share as the machine's patch store does — 2-D `OUT[cp][r]` to the
//! per-vertex output arrays (`Position`, `PointSize`, or the varying's
//! location), 1-D `OUT[r]` to the patch outputs (`TessLevelOuter`,
//! `TessLevelInner`, `PATCH[k]` at patch location k). BARRIER is an
//! `OpControlBarrier` of the patch.
//!
//! A TESS_EVAL shader takes its execution modes from `TES_PRIM_MODE`,
//! `TES_SPACING`, `TES_VERTEX_ORDER_CW` and `TES_POINT_MODE`; its
//! per-vertex inputs are arrays of 32 (the most control points a patch
//! has) copied into the `IN` array, its patch inputs (`TESSOUTER`,
//! `TESSINNER`, `PATCH[k]`) sit at row r of that array, and TESSCOORD is
//! `TessCoord` with w = 0. Its outputs are a vertex shader's.

use super::Error;
use super::io::Source;
use super::module::Translator;
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Decoration, ExecutionMode, StorageClass, Word};
use tgsi_ir::enums::{File, Processor, PropertyName, SemanticName};
use tgsi_ir::ir::{DstOperand, Register};

/// The most control points a patch has (`IN[v]` of both stages, v < 32).
pub(crate) const PATCH_VERTICES: u32 = 32;

/// `PIPE_PRIM_*` numbers of `TES_PRIM_MODE`.
const PRIM_LINES: u32 = 1;
const PRIM_TRIANGLES: u32 = 4;
const PRIM_QUADS: u32 = 7;

/// Locations between the two tessellation stages (per-vertex and patch
/// values share them: `spirv-val` rejects a patch value and a per-vertex
/// one at the same location).
pub const TESSELLATION_LOCATIONS: u32 = 32;

/// The location of a varying between the two tessellation stages (a
/// TESS_CTRL output, a TESS_EVAL input), the same for every module so that
/// the stages agree without seeing each other: per-vertex values count up
/// from 0 (`GENERIC[k]` at k for k < 16, `TEXCOORD[k]` at 16 + k (k < 4),
/// `COLOR[k]` at 20 + k and `BCOLOR[k]` at 22 + k (k < 2)) and the patch
/// values down from 31 (`PATCH[k]` at 31 - k, k < 32), so that a shader
/// with few of one kind has room for many of the other (a Direct3D hull
/// shader: its control points' registers as `GENERIC[k]`, its patch
/// constants as `PATCH[k]`). Two values of one module meeting at a
/// location are refused by name.
pub fn tessellation_location(name: SemanticName, k: u32) -> Option<u32> {
    match name {
        SemanticName::Generic if k < 16 => Some(k),
        SemanticName::TexCoord if k < 4 => Some(16 + k),
        SemanticName::Color if k < 2 => Some(20 + k),
        SemanticName::BColor if k < 2 => Some(22 + k),
        SemanticName::Patch if k < TESSELLATION_LOCATIONS => Some(TESSELLATION_LOCATIONS - 1 - k),
        _ => None,
    }
}

/// How many tessellation locations the varyings of `shader` between the
/// two tessellation stages reach (its highest [`tessellation_location`]
/// plus one; 0 outside those stages or without such varyings): what a
/// device's `maxTessellation*Components` must hold.
pub fn tessellation_locations_reached(shader: &tgsi_ir::ir::Shader) -> u32 {
    let file = match shader.processor {
        Processor::TessCtrl => File::Output,
        Processor::TessEval => File::Input,
        _ => return 0,
    };
    let mut reached = 0;
    for d in shader.declarations().filter(|d| d.file == file) {
        let Some(sem) = d.semantic else { continue };
        for r in d.first..=d.last {
            if let Some(loc) = tessellation_location(sem.name, sem.index + (r - d.first)) {
                reached = reached.max(loc + 1);
            }
        }
    }
    reached
}

/// Where a TESS_CTRL output register lives.
#[derive(Clone, Copy)]
pub(crate) enum PatchOutput {
    /// An array of a `vec4` per output control point.
    PerVertex(Word),
    /// `PointSize`: an array of a float per control point (from `.x`).
    PerVertexSize(Word),
    /// `TessLevelOuter` (4 floats) or `TessLevelInner` (2).
    Levels(Word, u32),
    /// A patch `vec4`.
    Patch(Word),
}

fn property(shader: &tgsi_ir::ir::Shader, name: PropertyName) -> Option<u32> {
    shader
        .properties()
        .find(|p| p.name == name)
        .map(|p| p.value)
}

impl Translator<'_> {
    /// True for the two tessellation stages.
    pub(crate) fn is_tessellation(&self) -> bool {
        matches!(
            self.shader.processor,
            Processor::TessCtrl | Processor::TessEval
        )
    }

    /// The output control points of a TESS_CTRL shader.
    pub(crate) fn vertices_out(&self) -> Result<u32, Error> {
        match property(self.shader, PropertyName::TcsVerticesOut) {
            Some(n) if (1..=PATCH_VERTICES).contains(&n) => Ok(n),
            Some(n) => Err(Error::general(format!(
                "TCS_VERTICES_OUT {n}: a patch has 1 to {PATCH_VERTICES} control points"
            ))),
            None => Err(Error::general(
                "a TESS_CTRL shader without TCS_VERTICES_OUT",
            )),
        }
    }

    /// [`tessellation_location`] of `name[k]` in this module, claimed for
    /// it: another value of the module already there is refused by name.
    pub(crate) fn tess_location(&mut self, name: SemanticName, k: u32) -> Result<u32, Error> {
        let loc = tessellation_location(name, k).ok_or_else(|| {
            Error::general(format!(
                "{name}[{k}] between tessellation stages is not translated to SPIR-V \
                 (GENERIC[0..15], TEXCOORD[0..3], COLOR[0..1], BCOLOR[0..1], PATCH[0..31] are)"
            ))
        })?;
        match self.tess_claims.get(&loc) {
            Some(&(other, j)) if (other, j) != (name, k) => Err(Error::general(format!(
                "{name}[{k}] and {other}[{j}] both take tessellation location {loc} \
                 (per-vertex values count up from 0, PATCH[k] down from {})",
                TESSELLATION_LOCATIONS - 1
            ))),
            _ => {
                self.tess_claims.insert(loc, (name, k));
                Ok(loc)
            }
        }
    }

    fn tess_var(&mut self, class: StorageClass, ty: Word) -> Word {
        let p = self.ptr(class, ty);
        let var = self.b.variable(p, None, class, None);
        self.interface.push(var);
        var
    }

    /// `TessLevelOuter` (`outer`) or `TessLevelInner` of storage `class`.
    fn levels(&mut self, class: StorageClass, outer: bool) -> (Word, u32) {
        let n = if outer { 4 } else { 2 };
        let (f32_, len) = (self.t.f32, self.c_u32(n));
        let arr = self.b.type_array(f32_, len);
        let var = self.tess_var(class, arr);
        let which = if outer {
            BuiltIn::TessLevelOuter
        } else {
            BuiltIn::TessLevelInner
        };
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
        self.b.decorate(var, Decoration::Patch, []);
        (var, n)
    }

    /// The patch `vec4` `PATCH[k]` of storage `class`.
    fn patch_vec4(&mut self, class: StorageClass, k: u32) -> Result<Word, Error> {
        let loc = self.tess_location(SemanticName::Patch, k)?;
        let f4 = self.t.f4;
        let var = self.tess_var(class, f4);
        self.b
            .decorate(var, Decoration::Location, [Operand::LiteralBit32(loc)]);
        self.b.decorate(var, Decoration::Patch, []);
        Ok(var)
    }

    /// A TESS_EVAL input declared without a vertex bracket: the levels or
    /// a `PATCH[k]` value.
    pub(crate) fn patch_input(&mut self, name: SemanticName, k: u32) -> Result<Source, Error> {
        match name {
            SemanticName::TessOuter | SemanticName::TessInner => {
                let (var, n) = self.levels(StorageClass::Input, name == SemanticName::TessOuter);
                Ok(Source::Levels(var, n))
            }
            SemanticName::Patch => Ok(Source::Vec4(self.patch_vec4(StorageClass::Input, k)?)),
            other => Err(Error::general(format!(
                "the patch input {other}[{k}] is not translated to SPIR-V yet"
            ))),
        }
    }

    /// The output variable of a TESS_CTRL output register of `name`
    /// (index `k`).
    pub(crate) fn declare_patch_output(
        &mut self,
        name: SemanticName,
        k: u32,
    ) -> Result<PatchOutput, Error> {
        let out = StorageClass::Output;
        match name {
            SemanticName::TessOuter | SemanticName::TessInner => {
                let (var, n) = self.levels(out, name == SemanticName::TessOuter);
                return Ok(PatchOutput::Levels(var, n));
            }
            SemanticName::Patch => return Ok(PatchOutput::Patch(self.patch_vec4(out, k)?)),
            _ => {}
        }
        let count = self.c_u32(self.vertices_out()?);
        let (f4, f32_) = (self.t.f4, self.t.f32);
        let (elem, builtin) = match name {
            SemanticName::Position => (f4, Some(BuiltIn::Position)),
            SemanticName::PSize => (f32_, Some(BuiltIn::PointSize)),
            _ => (f4, None),
        };
        let arr = self.b.type_array(elem, count);
        let var = self.tess_var(out, arr);
        match builtin {
            Some(which) => {
                self.b
                    .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
            }
            None => {
                let loc = self.tess_location(name, k)?;
                self.b
                    .decorate(var, Decoration::Location, [Operand::LiteralBit32(loc)]);
            }
        }
        Ok(if builtin == Some(BuiltIn::PointSize) {
            PatchOutput::PerVertexSize(var)
        } else {
            PatchOutput::PerVertex(var)
        })
    }

    /// The levels array `var` (`n` floats, storage `class`) as a `uvec4`
    /// of their bits (missing channels 0).
    pub(crate) fn load_levels(
        &mut self,
        var: Word,
        n: u32,
        class: StorageClass,
    ) -> Result<Word, Error> {
        let (f32_, u32_, u4) = (self.t.f32, self.t.u32, self.t.u4);
        let p = self.ptr(class, f32_);
        let zero = self.c_u32(0);
        let mut words = [zero; 4];
        for (c, word) in words.iter_mut().enumerate().take(n as usize) {
            let at = self.c_u32(c as u32);
            let e = sp!(self, self.b.access_chain(p, None, var, [at]))?;
            let x = sp!(self, self.b.load(f32_, None, e, None, []))?;
            *word = sp!(self, self.b.bitcast(u32_, None, x))?;
        }
        sp!(self, self.b.composite_construct(u4, None, words))
    }

    /// The output of a TESS_CTRL `OUT` access: its variable and, for a
    /// per-vertex one, the control point (an `int`, and whether it is
    /// known in range).
    fn patch_output_of(&mut self, reg: &Register) -> Result<(PatchOutput, Option<Word>), Error> {
        if reg.index.indirect.is_some() {
            return Err(self.fail(
                "a TESS_CTRL output with an indirect register index is not translated to SPIR-V yet",
            ));
        }
        let r = reg.index.offset as u32;
        let out = *self
            .patch_outputs
            .get(&r)
            .ok_or_else(|| self.fail(format!("OUT[{r}] is not declared")))?;
        let vertex = match (out, reg.dimension) {
            (PatchOutput::PerVertex(_) | PatchOutput::PerVertexSize(_), Some(dim)) => {
                let v = Register {
                    file: File::Output,
                    index: dim,
                    dimension: None,
                };
                let (i, _) = self.index_of(&v)?;
                Some(i)
            }
            (PatchOutput::PerVertex(_) | PatchOutput::PerVertexSize(_), None) => {
                return Err(self.fail(format!(
                    "OUT[{r}] is a per-vertex output, read or written without its control point"
                )));
            }
            _ => None,
        };
        Ok((out, vertex))
    }

    /// Reads a TESS_CTRL output register (0 outside the control points).
    pub(crate) fn load_patch_output(&mut self, reg: &Register) -> Result<Word, Error> {
        let (out, vertex) = self.patch_output_of(reg)?;
        let (f4, f32_, u32_, u4) = (self.t.f4, self.t.f32, self.t.u32, self.t.u4);
        let class = StorageClass::Output;
        match (out, vertex) {
            (PatchOutput::Levels(var, n), _) => self.load_levels(var, n, class),
            (PatchOutput::Patch(var), _) => {
                let v = sp!(self, self.b.load(f4, None, var, None, []))?;
                sp!(self, self.b.bitcast(u4, None, v))
            }
            (PatchOutput::PerVertex(var), Some(i)) => {
                let n = self.vertices_out()?;
                let (ok, at) = self.clamp_index(i, n);
                let p = self.ptr(class, f4);
                let e = sp!(self, self.b.access_chain(p, None, var, [at]))?;
                let v = sp!(self, self.b.load(f4, None, e, None, []))?;
                let bits = sp!(self, self.b.bitcast(u4, None, v))?;
                self.zero_unless(ok, bits)
            }
            (PatchOutput::PerVertexSize(var), Some(i)) => {
                let n = self.vertices_out()?;
                let (ok, at) = self.clamp_index(i, n);
                let p = self.ptr(class, f32_);
                let e = sp!(self, self.b.access_chain(p, None, var, [at]))?;
                let x = sp!(self, self.b.load(f32_, None, e, None, []))?;
                let x = sp!(self, self.b.bitcast(u32_, None, x))?;
                let zero = self.c_u32(0);
                let bits = sp!(
                    self,
                    self.b.composite_construct(u4, None, [x, zero, zero, zero])
                )?;
                self.zero_unless(ok, bits)
            }
            (_, None) => Err(self.fail("a per-vertex output without its control point")),
        }
    }

    /// `bits` where `ok`, else a zero `uvec4`.
    pub(crate) fn zero_unless(&mut self, ok: Word, bits: Word) -> Result<Word, Error> {
        let (u4, b4) = (self.t.u4, self.t.b4);
        let zero = self.c_u32(0);
        let z4 = self.b.constant_composite(u4, [zero, zero, zero, zero]);
        let ok4 = sp!(self, self.b.composite_construct(b4, None, [ok, ok, ok, ok]))?;
        sp!(self, self.b.select(u4, None, ok4, bits, z4))
    }

    /// Writes channels `mask` of `bits` (a `uvec4`) to a TESS_CTRL output
    /// (nothing outside the control points), each channel on its own as
    /// the machine's patch store takes them: invocations writing other
    /// channels of the same output keep theirs.
    pub(crate) fn store_patch_output(
        &mut self,
        dst: &DstOperand,
        bits: Word,
        mask: u8,
    ) -> Result<(), Error> {
        let (out, vertex) = self.patch_output_of(&dst.reg)?;
        let (f32_, u32_) = (self.t.f32, self.t.u32);
        let pf = self.ptr(StorageClass::Output, f32_);
        // channel c of `bits` to the float at `var` + `prefix` + [c]
        let channels = |t: &mut Self, var: Word, prefix: &[Word], count: u32| {
            for c in (0..count).filter(|c| mask >> c & 1 == 1) {
                let at = t.c_u32(c);
                let mut chain = prefix.to_vec();
                chain.push(at);
                let e = sp!(t, t.b.access_chain(pf, None, var, chain))?;
                let w = sp!(t, t.b.composite_extract(u32_, None, bits, [c]))?;
                let x = sp!(t, t.b.bitcast(f32_, None, w))?;
                sp!(t, t.b.store(e, x, None, []))?;
            }
            Ok::<(), Error>(())
        };
        match (out, vertex) {
            (PatchOutput::Levels(var, n), _) => channels(self, var, &[], n),
            (PatchOutput::Patch(var), _) => channels(self, var, &[], 4),
            (PatchOutput::PerVertex(var) | PatchOutput::PerVertexSize(var), Some(i)) => {
                let n = self.vertices_out()?;
                let (ok, at) = self.clamp_index(i, n);
                let size = matches!(out, PatchOutput::PerVertexSize(_));
                self.when(ok, None, |t| {
                    if size {
                        // PointSize: the float of .x
                        if mask & 1 == 1 {
                            let e = sp!(t, t.b.access_chain(pf, None, var, [at]))?;
                            let w = sp!(t, t.b.composite_extract(u32_, None, bits, [0]))?;
                            let x = sp!(t, t.b.bitcast(f32_, None, w))?;
                            sp!(t, t.b.store(e, x, None, []))?;
                        }
                    } else {
                        channels(t, var, &[at], 4)?;
                    }
                    Ok(None)
                })?;
                Ok(())
            }
            (_, None) => Err(self.fail("a per-vertex output without its control point")),
        }
    }

    /// The execution modes of a tessellation shader's entry point: a
    /// TESS_CTRL shader's output control points, and the domain, spacing,
    /// winding and point mode from the TESS_EVAL properties or the
    /// tessellator settings of the options (the spacing defaults to equal,
    /// as on the machine, in a TGSI TESS_EVAL shader).
    pub(crate) fn tessellation_modes(&mut self, main: Word) -> Result<(), Error> {
        use tgsi_ir::tess::{Domain, OutputPrimitive, Partitioning};
        let shader = self.shader;
        let settings = self.options.tessellator;
        let control = shader.processor == Processor::TessCtrl;
        if control {
            let n = self.vertices_out()?;
            self.b
                .execution_mode(main, ExecutionMode::OutputVertices, [n]);
        }
        let prop = |name| {
            if control {
                None
            } else {
                property(shader, name)
            }
        };
        let domain = match (prop(PropertyName::TesPrimMode), settings) {
            (Some(PRIM_TRIANGLES), _) => Some(ExecutionMode::Triangles),
            (Some(PRIM_QUADS), _) => Some(ExecutionMode::Quads),
            (Some(PRIM_LINES), _) => Some(ExecutionMode::Isolines),
            (Some(other), _) => {
                return Err(Error::general(format!(
                    "TES_PRIM_MODE {other} is not a tessellation domain (4 triangles, 7 quads, 1 isolines)"
                )));
            }
            (None, Some(s)) => Some(match s.domain() {
                Domain::Triangle => ExecutionMode::Triangles,
                Domain::Quad => ExecutionMode::Quads,
                Domain::Isoline => ExecutionMode::Isolines,
            }),
            (None, None) if control => None,
            (None, None) => {
                return Err(Error::general("a TESS_EVAL shader without TES_PRIM_MODE"));
            }
        };
        let spacing = match (prop(PropertyName::TesSpacing), settings) {
            (Some(0), _) => Some(ExecutionMode::SpacingFractionalOdd),
            (Some(1), _) => Some(ExecutionMode::SpacingFractionalEven),
            (Some(2), _) => Some(ExecutionMode::SpacingEqual),
            (Some(other), _) => {
                return Err(Error::general(format!(
                    "TES_SPACING {other} is not a spacing (0 fractional odd, 1 fractional even, 2 equal)"
                )));
            }
            (None, Some(s)) => Some(match s.partitioning() {
                Partitioning::Integer | Partitioning::Pow2 => ExecutionMode::SpacingEqual,
                Partitioning::FractionalOdd => ExecutionMode::SpacingFractionalOdd,
                Partitioning::FractionalEven => ExecutionMode::SpacingFractionalEven,
            }),
            (None, None) if !control && !self.options.direct3d => Some(ExecutionMode::SpacingEqual),
            (None, None) => None,
        };
        let (order, points) = match settings {
            // a Direct3D hull shader's declarations, in both modules
            Some(s) => match s.output() {
                OutputPrimitive::Point => (None, true),
                OutputPrimitive::Line => (None, false),
                OutputPrimitive::TriangleCw => (Some(ExecutionMode::VertexOrderCw), false),
                OutputPrimitive::TriangleCcw => (Some(ExecutionMode::VertexOrderCcw), false),
            },
            // a TGSI TESS_EVAL shader's properties
            None if !control && !self.options.direct3d => {
                let cw = prop(PropertyName::TesVertexOrderCw).unwrap_or(0) != 0;
                let order = if cw {
                    ExecutionMode::VertexOrderCw
                } else {
                    ExecutionMode::VertexOrderCcw
                };
                (
                    Some(order),
                    prop(PropertyName::TesPointMode).unwrap_or(0) != 0,
                )
            }
            // left to the other stage
            None => (None, false),
        };
        for mode in [domain, spacing, order].into_iter().flatten() {
            self.b.execution_mode(main, mode, []);
        }
        if points {
            self.b.execution_mode(main, ExecutionMode::PointMode, []);
        }
        Ok(())
    }

    /// Declares the input behind a TESS_EVAL shader's TESSCOORD,
    /// TESSOUTER or TESSINNER system value (nothing for the others).
    pub(crate) fn declare_tessellation_input(&mut self, name: SemanticName) {
        if self.shader.processor != Processor::TessEval || self.tess_inputs.contains_key(&name) {
            return;
        }
        let input = StorageClass::Input;
        let found = match name {
            SemanticName::TessCoord => {
                let f32_ = self.t.f32;
                let f3 = self.b.type_vector(f32_, 3);
                let var = self.tess_var(input, f3);
                self.b.decorate(
                    var,
                    Decoration::BuiltIn,
                    [Operand::BuiltIn(BuiltIn::TessCoord)],
                );
                (var, 3)
            }
            SemanticName::TessOuter | SemanticName::TessInner => {
                self.levels(input, name == SemanticName::TessOuter)
            }
            _ => return,
        };
        self.tess_inputs.insert(name, found);
    }

    /// The TESSCOORD (w = 0), TESSOUTER and TESSINNER system values of a
    /// TESS_EVAL shader, `None` for the others.
    pub(crate) fn tessellation_system_value(
        &mut self,
        name: SemanticName,
    ) -> Result<Option<Word>, Error> {
        let Some(&(var, n)) = self.tess_inputs.get(&name) else {
            return Ok(None);
        };
        let input = StorageClass::Input;
        if name != SemanticName::TessCoord {
            return Ok(Some(self.load_levels(var, n, input)?));
        }
        let (f32_, u32_, u4) = (self.t.f32, self.t.u32, self.t.u4);
        let f3 = self.b.type_vector(f32_, 3);
        let v = sp!(self, self.b.load(f3, None, var, None, []))?;
        let mut words = [self.c_u32(0); 4];
        for (c, word) in words.iter_mut().enumerate().take(3) {
            let x = sp!(self, self.b.composite_extract(f32_, None, v, [c as u32]))?;
            *word = sp!(self, self.b.bitcast(u32_, None, x))?;
        }
        Ok(Some(sp!(
            self,
            self.b.composite_construct(u4, None, words)
        )?))
    }
}
