//! The inputs and outputs of vertex and fragment shaders, and their system
//! values. `IN` and `OUT` registers live in function arrays like `TEMP`
//! (so that indirect and partial accesses work the same): the inputs are
//! copied in at the start, the outputs out before every return.
//!
//! Interface: a vertex shader's `IN[i]` is the attribute at location i; a
//! varying is at the location its semantic gives ([`varying_location`]) in
//! both stages; a vertex `POSITION` is `Position`, `PSIZE` is `PointSize`; a
//! fragment `POSITION` input is `FragCoord` and output the depth
//! (`FragDepth` from `.z`), `FACE` is `FrontFacing` (±1.0 in `.x`), and
//! `COLOR[k]` is the colour output at location k.

use super::Error;
use super::module::Translator;
use rspirv::dr::Operand;
use rspirv::spirv::{BuiltIn, Capability, Decoration, StorageClass, Word};
use tgsi_ir::enums::{File, InterpLocation, InterpMode, Processor, PropertyName, SemanticName};

/// Where an input register's value comes from.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    /// A `vec4` input variable (attribute, varying).
    Vec4(Word),
    /// `FragCoord` (TGSI's fragment `POSITION`, under the `FS_COORD_*`
    /// properties).
    FragCoord(Word),
    /// `FrontFacing`: x = 1.0 or -1.0.
    Face(Word),
    /// An `int` built-in: its bits in every channel.
    Int(Word),
    /// An `int` built-in every input vertex's row holds (a geometry
    /// shader's `PRIM_ID` input: the primitive's id).
    IntPerVertex(Word),
    /// `FragCoord` with w = 1 / its w (Direct3D's SV_Position).
    ClipPosition(Word),
    /// A geometry or tessellation shader's `vec4` per input vertex (an
    /// array).
    PerVertex(Word),
    /// `TessLevelOuter` / `TessLevelInner` of a TESS_EVAL shader: the
    /// array and its length.
    Levels(Word, u32),
    /// Distances `first..first + 4` of a fragment shader's `CLIPDIST`
    /// inputs (the clip distances, then the cull distances; 0 past them).
    Distances { first: u32 },
}

/// Where an output register's value goes.
#[derive(Clone, Copy)]
pub(crate) enum Sink {
    Vec4(Word),
    /// An integer `vec4` output (`ivec4` or `uvec4`, its type): the bits.
    Bits(Word, Word),
    /// A float built-in taking one channel (`PointSize` .x, `FragDepth` .z).
    Channel(Word, u32),
    /// An `int` built-in taking one channel's bits (`FragStencilRefEXT` .y,
    /// `Layer` and `ViewportIndex` .x), or element 0 of an `int[1]` one
    /// (`SampleMask` .x).
    Int {
        var: Word,
        channel: u32,
        element: Option<u32>,
    },
    /// Distances `first..first + 4` of the `CLIPDIST` outputs: the clip
    /// distances first, then the cull distances ([`Distances`]).
    Distances {
        first: u32,
    },
}

/// The clip and cull distance arrays (variable 0 where there are none).
#[derive(Clone, Copy)]
pub(crate) struct Distances {
    clip_var: Word,
    clip: u32,
    cull_var: Word,
    cull: u32,
}

impl Distances {
    /// The array and index of distance element `e` (clip distances first,
    /// then cull distances); None past both.
    fn element(&self, e: u32) -> Option<(Word, u32)> {
        if e < self.clip {
            Some((self.clip_var, e))
        } else if e < self.clip + self.cull {
            Some((self.cull_var, e - self.clip))
        } else {
            None
        }
    }
}

/// The location of a varying of `semantic` (index `k`), shared by the
/// vertex shader's output and the fragment shader's input.
pub fn varying_location(semantic: SemanticName, k: u32) -> Option<u32> {
    match semantic {
        SemanticName::Generic if k < 16 => Some(k),
        SemanticName::Generic if k < 32 => Some(30 + (k - 16)),
        SemanticName::TexCoord if k < 8 => Some(16 + k),
        SemanticName::Color if k < 2 => Some(24 + k),
        SemanticName::BColor if k < 2 => Some(26 + k),
        SemanticName::Fog => Some(28),
        SemanticName::PCoord => Some(29),
        _ => None,
    }
}

impl Translator<'_> {
    fn io_var(&mut self, class: StorageClass, ty: Word) -> Word {
        let p = self.ptr(class, ty);
        let var = self.b.variable(p, None, class, None);
        self.interface.push(var);
        var
    }

    fn located(&mut self, class: StorageClass, location: u32) -> Word {
        let f4 = self.t.f4;
        let var = self.io_var(class, f4);
        self.b
            .decorate(var, Decoration::Location, [Operand::LiteralBit32(location)]);
        var
    }

    fn builtin(&mut self, class: StorageClass, ty: Word, which: BuiltIn) -> Word {
        let var = self.io_var(class, ty);
        self.b
            .decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(which)]);
        var
    }

    /// The interface variables of the `IN` and `OUT` declarations.
    pub(crate) fn declare_io(&mut self) -> Result<(), Error> {
        let shader = self.shader;
        let stage = shader.processor;
        if stage == Processor::Vertex && self.options.capture_outputs {
            let buffer = self.word_buffer(super::CAPTURE_BINDING, false);
            let i32_ = self.t.i32;
            let index = self.builtin(StorageClass::Input, i32_, BuiltIn::VertexIndex);
            self.capture = Some((buffer, index));
        }
        let writes_primitive_id = shader.declarations().any(|d| {
            d.file == File::Output && d.semantic.is_some_and(|s| s.name == SemanticName::PrimId)
        });
        if stage == Processor::Geometry && !writes_primitive_id {
            self.declare_int_builtin(SemanticName::PrimId);
            let input = self.int_builtins[&SemanticName::PrimId];
            let i32_ = self.t.i32;
            let output = self.builtin(StorageClass::Output, i32_, BuiltIn::PrimitiveId);
            self.primitive_id_pass = Some((input, output));
        }
        if self.is_tessellation() {
            // read by the per-vertex inputs' copy, in the entry block
            self.declare_int_builtin(SemanticName::VerticesIn);
        }
        for d in shader.declarations() {
            if !matches!(d.file, File::Input | File::Output) {
                continue;
            }
            let semantic = d.semantic.map(|s| (s.name, s.index));
            for n in d.first..=d.last {
                let k = semantic.map_or(0, |s| s.1 + (n - d.first));
                if d.file == File::Output && stage == Processor::TessCtrl {
                    let name = semantic
                        .map(|s| s.0)
                        .ok_or_else(|| Error::general(format!("OUT[{n}] has no semantic")))?;
                    let out = self.declare_patch_output(name, k)?;
                    self.patch_outputs.insert(n, out);
                } else if d.file == File::Input {
                    let src = self.input_source(stage, semantic.map(|s| s.0), n, k, d.interp)?;
                    self.in_sources.push((n, src));
                } else {
                    let sink = self.output_sink(stage, semantic.map(|s| s.0), k)?;
                    self.out_sinks.push((n, sink));
                }
            }
        }
        Ok(())
    }

    fn input_source(
        &mut self,
        stage: Processor,
        semantic: Option<SemanticName>,
        n: u32,
        k: u32,
        interp: Option<tgsi_ir::ir::Interp>,
    ) -> Result<Source, Error> {
        let f4 = self.t.f4;
        if stage == Processor::Vertex {
            return Ok(Source::Vec4(self.located(StorageClass::Input, n)));
        }
        if let (Processor::TessEval, Some(name)) = (stage, semantic)
            && name.is_patch()
        {
            return self.patch_input(name, k);
        }
        if matches!(
            stage,
            Processor::Geometry | Processor::TessCtrl | Processor::TessEval
        ) {
            return self.per_vertex_input(semantic, n, k);
        }
        let name = semantic.ok_or_else(|| Error::general(format!("IN[{n}] has no semantic")))?;
        match name {
            SemanticName::Position => {
                let var = self.builtin(StorageClass::Input, f4, BuiltIn::FragCoord);
                // Direct3D's SV_Position has the clip w, FragCoord 1/w
                if self.options.direct3d {
                    Ok(Source::ClipPosition(var))
                } else {
                    Ok(Source::FragCoord(var))
                }
            }
            SemanticName::Face => {
                let b = self.t.bool;
                Ok(Source::Face(self.builtin(
                    StorageClass::Input,
                    b,
                    BuiltIn::FrontFacing,
                )))
            }
            SemanticName::ClipDist => {
                self.distances()?;
                Ok(Source::Distances { first: 4 * k })
            }
            SemanticName::Layer | SemanticName::ViewportIndex | SemanticName::PrimId => {
                let which = match name {
                    SemanticName::Layer => BuiltIn::Layer,
                    SemanticName::ViewportIndex => BuiltIn::ViewportIndex,
                    _ => BuiltIn::PrimitiveId,
                };
                // the fragment stage reads these with the geometry
                // capability (the viewport index with multi-viewport's)
                self.b.capability(Capability::Geometry);
                if name == SemanticName::ViewportIndex {
                    self.b.capability(Capability::MultiViewport);
                }
                let i32_ = self.t.i32;
                let var = self.builtin(StorageClass::Input, i32_, which);
                self.b.decorate(var, Decoration::Flat, []);
                Ok(Source::Int(var))
            }
            _ => {
                let loc = varying_location(name, k).ok_or_else(|| {
                    Error::general(format!("input {name}[{k}] is not translated to SPIR-V yet"))
                })?;
                let var = self.located(StorageClass::Input, loc);
                // a varying declared without an interpolation mode: the
                // machine's linking rule
                if interp.is_none() && name.flat_when_undeclared() {
                    self.b.decorate(var, Decoration::Flat, []);
                }
                if let Some(i) = interp {
                    match i.mode {
                        InterpMode::Constant => self.b.decorate(var, Decoration::Flat, []),
                        InterpMode::Linear => self.b.decorate(var, Decoration::NoPerspective, []),
                        InterpMode::Perspective | InterpMode::Color => {}
                    }
                    match i.location {
                        InterpLocation::Centroid => self.b.decorate(var, Decoration::Centroid, []),
                        InterpLocation::Sample => {
                            self.b.capability(Capability::SampleRateShading);
                            self.b.decorate(var, Decoration::Sample, [])
                        }
                        InterpLocation::Center => {}
                    }
                }
                Ok(Source::Vec4(var))
            }
        }
    }

    /// A geometry or tessellation shader input: an array of a `vec4` per
    /// vertex, at the varying's location (`Position` for `POSITION`).
    fn per_vertex_input(
        &mut self,
        semantic: Option<SemanticName>,
        n: u32,
        k: u32,
    ) -> Result<Source, Error> {
        let name = semantic.ok_or_else(|| Error::general(format!("IN[{n}] has no semantic")))?;
        if name == SemanticName::PrimId && self.shader.processor == Processor::Geometry {
            self.declare_int_builtin(SemanticName::PrimId);
            return Ok(Source::IntPerVertex(
                self.int_builtins[&SemanticName::PrimId],
            ));
        }
        let (f4, count) = (self.t.f4, self.c_u32(self.in_vertices));
        let arr = self.b.type_array(f4, count);
        let var = self.io_var(StorageClass::Input, arr);
        match name {
            SemanticName::Position => self.b.decorate(
                var,
                Decoration::BuiltIn,
                [Operand::BuiltIn(BuiltIn::Position)],
            ),
            SemanticName::PSize => self.b.decorate(
                var,
                Decoration::BuiltIn,
                [Operand::BuiltIn(BuiltIn::PointSize)],
            ),
            _ => {
                // a TESS_EVAL shader reads the packed tessellation locations
                let loc = if self.shader.processor == Processor::TessEval {
                    self.tess_location(name, k)?
                } else {
                    varying_location(name, k).ok_or_else(|| {
                        Error::general(format!("input {name}[{k}] is not translated to SPIR-V yet"))
                    })?
                };
                self.b
                    .decorate(var, Decoration::Location, [Operand::LiteralBit32(loc)]);
            }
        }
        Ok(Source::PerVertex(var))
    }

    fn output_sink(
        &mut self,
        stage: Processor,
        semantic: Option<SemanticName>,
        k: u32,
    ) -> Result<Sink, Error> {
        let (f4, f32_) = (self.t.f4, self.t.f32);
        let name = semantic.ok_or_else(|| Error::general("an output without a semantic"))?;
        match (stage, name) {
            (
                Processor::Vertex | Processor::TessEval | Processor::Geometry,
                SemanticName::Position,
            ) => Ok(Sink::Vec4(self.builtin(
                StorageClass::Output,
                f4,
                BuiltIn::Position,
            ))),
            (
                Processor::Vertex | Processor::TessEval | Processor::Geometry,
                SemanticName::PSize,
            ) => Ok(Sink::Channel(
                self.builtin(StorageClass::Output, f32_, BuiltIn::PointSize),
                0,
            )),
            (Processor::Fragment, SemanticName::Color) => {
                if k < 8 && self.options.integer_colors >> k & 1 == 1 {
                    let signed = self.options.signed_colors >> k & 1 == 1;
                    let ty = if signed { self.t.i4 } else { self.t.u4 };
                    let var = self.io_var(StorageClass::Output, ty);
                    self.b
                        .decorate(var, Decoration::Location, [Operand::LiteralBit32(k)]);
                    return Ok(Sink::Bits(var, ty));
                }
                Ok(Sink::Vec4(self.located(StorageClass::Output, k)))
            }
            (Processor::Fragment, SemanticName::Position) => {
                self.depth_replacing = true;
                Ok(Sink::Channel(
                    self.builtin(StorageClass::Output, f32_, BuiltIn::FragDepth),
                    2,
                ))
            }
            (Processor::Fragment, SemanticName::Stencil) => {
                if self.options.refuse_stencil_export {
                    return Err(Error::general(
                        "the STENCIL output needs the device extension VK_EXT_shader_stencil_export",
                    ));
                }
                self.b.extension("SPV_EXT_shader_stencil_export");
                self.b.capability(Capability::StencilExportEXT);
                self.stencil_replacing = true;
                let i32_ = self.t.i32;
                let var = self.builtin(StorageClass::Output, i32_, BuiltIn::FragStencilRefEXT);
                Ok(Sink::Int {
                    var,
                    channel: 1,
                    element: None,
                })
            }
            (Processor::Fragment, SemanticName::SampleMask) => {
                let (i32_, one) = (self.t.i32, self.c_u32(1));
                let arr = self.b.type_array(i32_, one);
                let var = self.builtin(StorageClass::Output, arr, BuiltIn::SampleMask);
                Ok(Sink::Int {
                    var,
                    channel: 0,
                    element: Some(0),
                })
            }
            (
                Processor::Vertex | Processor::TessEval | Processor::Geometry,
                SemanticName::Layer | SemanticName::ViewportIndex,
            ) => {
                let which = if name == SemanticName::Layer {
                    BuiltIn::Layer
                } else {
                    BuiltIn::ViewportIndex
                };
                if stage == Processor::Geometry {
                    if which == BuiltIn::ViewportIndex {
                        self.b.capability(Capability::MultiViewport);
                    }
                } else if which == BuiltIn::Layer {
                    self.b.capability(Capability::ShaderLayer);
                } else {
                    self.b.capability(Capability::ShaderViewportIndex);
                }
                let i32_ = self.t.i32;
                let var = self.builtin(StorageClass::Output, i32_, which);
                Ok(Sink::Int {
                    var,
                    channel: 0,
                    element: None,
                })
            }
            (Processor::Geometry, SemanticName::PrimId) => {
                let i32_ = self.t.i32;
                let var = self.builtin(StorageClass::Output, i32_, BuiltIn::PrimitiveId);
                Ok(Sink::Int {
                    var,
                    channel: 0,
                    element: None,
                })
            }
            (
                Processor::Vertex | Processor::TessEval | Processor::Geometry,
                SemanticName::ClipDist,
            ) => {
                self.distances()?;
                Ok(Sink::Distances { first: 4 * k })
            }
            (Processor::Vertex | Processor::TessEval | Processor::Geometry, _) => {
                let loc = varying_location(name, k).ok_or_else(|| {
                    Error::general(format!(
                        "output {name}[{k}] is not translated to SPIR-V yet"
                    ))
                })?;
                Ok(Sink::Vec4(self.located(StorageClass::Output, loc)))
            }
            _ => Err(Error::general(format!(
                "the {name} output of a {stage} shader is not translated to SPIR-V yet"
            ))),
        }
    }

    /// The `ClipDistance` and `CullDistance` arrays of the `CLIPDIST`
    /// outputs (a fragment shader's inputs): `NUM_CLIPDIST_ENABLED` clip distances (four per declared
    /// register without the property), then `NUM_CULLDIST_ENABLED` cull
    /// distances. Made once.
    fn distances(&mut self) -> Result<Distances, Error> {
        if let Some(made) = self.distance_vars {
            return Ok(made);
        }
        // a fragment shader's are its inputs
        let (file, class) = if self.shader.processor == Processor::Fragment {
            (File::Input, StorageClass::Input)
        } else {
            (File::Output, StorageClass::Output)
        };
        let registers: u32 = self
            .shader
            .declarations()
            .filter(|d| {
                d.file == file && d.semantic.is_some_and(|s| s.name == SemanticName::ClipDist)
            })
            .map(|d| d.last - d.first + 1)
            .sum();
        let property = |name| {
            self.shader
                .properties()
                .find(|p| p.name == name)
                .map(|p| p.value)
        };
        let cull = property(PropertyName::NumCulldistEnabled).unwrap_or(0);
        let clip = property(PropertyName::NumClipdistEnabled)
            .unwrap_or((4 * registers).saturating_sub(cull));
        if clip + cull > 4 * registers {
            return Err(Error::general(format!(
                "{clip} clip and {cull} cull distances in {registers} CLIPDIST registers"
            )));
        }
        if let Some(max) = self.options.distance_limits
            && (clip > max.clip || cull > max.cull || clip + cull > max.combined)
        {
            return Err(Error::general(format!(
                "{clip} clip and {cull} cull distances: the device takes at most {} clip, {} cull, {} together",
                max.clip, max.cull, max.combined
            )));
        }
        let mut array = |len: u32, which: BuiltIn, cap: Capability| -> Word {
            if len == 0 {
                return 0;
            }
            self.b.capability(cap);
            let (f32_, n) = (self.t.f32, self.c_u32(len));
            let arr = self.b.type_array(f32_, n);
            self.builtin(class, arr, which)
        };
        let d = Distances {
            clip_var: array(clip, BuiltIn::ClipDistance, Capability::ClipDistance),
            clip,
            cull_var: array(cull, BuiltIn::CullDistance, Capability::CullDistance),
            cull,
        };
        self.distance_vars = Some(d);
        Ok(d)
    }

    /// `FragCoord` (the variable `var`) as the machine gives the fragment
    /// `POSITION` under the shader's `FS_COORD_*` properties: with a
    /// lower-left origin y is the target's height (the specialization
    /// constant [`crate::TARGET_HEIGHT_SPEC_ID`]) minus y, and integer
    /// pixel centres are 0.5 less in x and y; both exact in f32, as the
    /// machine's.
    pub(crate) fn load_frag_coord(&mut self, var: Word) -> Result<Word, Error> {
        let (f4, f32_) = (self.t.f4, self.t.f32);
        let v = sp!(self, self.b.load(f4, None, var, None, []))?;
        let (lower_left, integer) = self.fragment_coord_rules();
        if !(lower_left || integer) {
            return Ok(v);
        }
        let mut x = sp!(self, self.b.composite_extract(f32_, None, v, [0]))?;
        let mut y = sp!(self, self.b.composite_extract(f32_, None, v, [1]))?;
        if lower_left {
            let height = self.target_height()?;
            y = sp!(self, self.b.f_sub(f32_, None, height, y))?;
        }
        if integer {
            let half = self.c_f32(0.5);
            x = sp!(self, self.b.f_sub(f32_, None, x, half))?;
            y = sp!(self, self.b.f_sub(f32_, None, y, half))?;
        }
        let v = sp!(self, self.b.composite_insert(f4, None, x, v, [0]))?;
        sp!(self, self.b.composite_insert(f4, None, y, v, [1]))
    }

    /// The render target's height as a float, from the specialization
    /// constant [`crate::TARGET_HEIGHT_SPEC_ID`] (declared once).
    fn target_height(&mut self) -> Result<Word, Error> {
        let f32_ = self.t.f32;
        let spec = self.spec_constant(crate::TARGET_HEIGHT_SPEC_ID, 0);
        sp!(self, self.b.convert_u_to_f(f32_, None, spec))
    }

    /// Copies the inputs into the `IN` array (at the start of main).
    pub(crate) fn load_inputs(&mut self) -> Result<(), Error> {
        let Some((array, _)) = self.ins else {
            return Ok(());
        };
        let (f4, u4) = (self.t.f4, self.t.u4);
        for (n, src) in self.in_sources.clone() {
            let bits = match src {
                Source::FragCoord(var) => {
                    let v = self.load_frag_coord(var)?;
                    sp!(self, self.b.bitcast(u4, None, v))?
                }
                Source::Vec4(var) => {
                    let v = sp!(self, self.b.load(f4, None, var, None, []))?;
                    sp!(self, self.b.bitcast(u4, None, v))?
                }
                Source::PerVertex(var) => {
                    // every vertex's value to its row of the IN array
                    // (a patch's rows past its control points read 0)
                    let p = self.ptr(StorageClass::Input, f4);
                    let count = self.patch_vertices()?;
                    for v in 0..self.in_vertices {
                        let i = self.c_u32(v);
                        let e = sp!(self, self.b.access_chain(p, None, var, [i]))?;
                        let x = sp!(self, self.b.load(f4, None, e, None, []))?;
                        let mut bits = sp!(self, self.b.bitcast(u4, None, x))?;
                        if let Some(count) = count {
                            let (bool_, u32_) = (self.t.bool, self.t.u32);
                            let c = sp!(self, self.b.bitcast(u32_, None, count))?;
                            let inside = sp!(self, self.b.u_less_than(bool_, None, i, c))?;
                            bits = self.zero_unless(inside, bits)?;
                        }
                        let dst = self.reg_ptr_direct(array, v * self.in_regs + n);
                        sp!(self, self.b.store(dst, bits, None, []))?;
                    }
                    continue;
                }
                Source::IntPerVertex(var) => {
                    let (i32_, u32_) = (self.t.i32, self.t.u32);
                    let v = sp!(self, self.b.load(i32_, None, var, None, []))?;
                    let u = sp!(self, self.b.bitcast(u32_, None, v))?;
                    let bits = sp!(self, self.b.composite_construct(u4, None, [u, u, u, u]))?;
                    for v in 0..self.in_vertices {
                        let dst = self.reg_ptr_direct(array, v * self.in_regs + n);
                        sp!(self, self.b.store(dst, bits, None, []))?;
                    }
                    continue;
                }
                Source::Levels(var, len) => self.load_levels(var, len, StorageClass::Input)?,
                Source::Distances { first } => {
                    let d = self.distances()?;
                    let f32_ = self.t.f32;
                    let p = self.ptr(StorageClass::Input, f32_);
                    let mut parts = [self.c_f32(0.0); 4];
                    for (c, part) in parts.iter_mut().enumerate() {
                        let Some((var, at)) = d.element(first + c as u32) else {
                            continue;
                        };
                        let at = self.c_u32(at);
                        let src = sp!(self, self.b.access_chain(p, None, var, [at]))?;
                        *part = sp!(self, self.b.load(f32_, None, src, None, []))?;
                    }
                    let v = sp!(self, self.b.composite_construct(f4, None, parts))?;
                    sp!(self, self.b.bitcast(u4, None, v))?
                }
                Source::ClipPosition(var) => {
                    let f32_ = self.t.f32;
                    let v = self.load_frag_coord(var)?;
                    let w = sp!(self, self.b.composite_extract(f32_, None, v, [3]))?;
                    let one = self.c_f32(1.0);
                    let clip_w = sp!(self, self.b.f_div(f32_, None, one, w))?;
                    let v = sp!(self, self.b.composite_insert(f4, None, clip_w, v, [3]))?;
                    sp!(self, self.b.bitcast(u4, None, v))?
                }
                Source::Int(var) => {
                    let (i32_, u32_) = (self.t.i32, self.t.u32);
                    let v = sp!(self, self.b.load(i32_, None, var, None, []))?;
                    let u = sp!(self, self.b.bitcast(u32_, None, v))?;
                    sp!(self, self.b.composite_construct(u4, None, [u, u, u, u]))?
                }
                Source::Face(var) => {
                    let b = self.t.bool;
                    let f32_ = self.t.f32;
                    let front = sp!(self, self.b.load(b, None, var, None, []))?;
                    let (one, minus, zero) = (self.c_f32(1.0), self.c_f32(-1.0), self.c_f32(0.0));
                    let x = sp!(self, self.b.select(f32_, None, front, one, minus))?;
                    let v = sp!(
                        self,
                        self.b.composite_construct(f4, None, [x, zero, zero, one])
                    )?;
                    sp!(self, self.b.bitcast(u4, None, v))?
                }
            };
            let p = self.reg_ptr_direct(array, n);
            sp!(self, self.b.store(p, bits, None, []))?;
        }
        Ok(())
    }

    /// Copies the `OUT` array to the outputs (before every return).
    pub(crate) fn store_outputs(&mut self) -> Result<(), Error> {
        // a geometry shader's outputs go out at each EMIT
        if self.shader.processor == Processor::Geometry {
            return Ok(());
        }
        self.copy_outputs()
    }

    /// Copies the `OUT` array to the output variables.
    pub(crate) fn copy_outputs(&mut self) -> Result<(), Error> {
        let Some((array, len)) = self.outs else {
            return Ok(());
        };
        if let Some((buffer, index)) = self.capture {
            self.capture_outputs(array, len, buffer, index)?;
        }
        let (f4, u4, f32_) = (self.t.f4, self.t.u4, self.t.f32);
        for (n, sink) in self.out_sinks.clone() {
            let p = self.reg_ptr_direct(array, n);
            let bits = sp!(self, self.b.load(u4, None, p, None, []))?;
            let v = sp!(self, self.b.bitcast(f4, None, bits))?;
            match sink {
                Sink::Vec4(var) => sp!(self, self.b.store(var, v, None, []))?,
                Sink::Bits(var, ty) => {
                    let x = if ty == u4 {
                        bits
                    } else {
                        sp!(self, self.b.bitcast(ty, None, bits))?
                    };
                    sp!(self, self.b.store(var, x, None, []))?
                }
                Sink::Channel(var, c) => {
                    let x = sp!(self, self.b.composite_extract(f32_, None, v, [c]))?;
                    sp!(self, self.b.store(var, x, None, []))?
                }
                Sink::Int {
                    var,
                    channel,
                    element,
                } => {
                    let (u32_, i32_) = (self.t.u32, self.t.i32);
                    let w = sp!(self, self.b.composite_extract(u32_, None, bits, [channel]))?;
                    let x = sp!(self, self.b.bitcast(i32_, None, w))?;
                    let dst = match element {
                        Some(e) => {
                            let p = self.ptr(StorageClass::Output, i32_);
                            let at = self.c_u32(e);
                            sp!(self, self.b.access_chain(p, None, var, [at]))?
                        }
                        None => var,
                    };
                    sp!(self, self.b.store(dst, x, None, []))?
                }
                Sink::Distances { first } => {
                    let d = self.distances()?;
                    let p = self.ptr(StorageClass::Output, f32_);
                    for c in 0..4 {
                        let Some((var, at)) = d.element(first + c) else {
                            break;
                        };
                        let x = sp!(self, self.b.composite_extract(f32_, None, v, [c]))?;
                        let at = self.c_u32(at);
                        let dst = sp!(self, self.b.access_chain(p, None, var, [at]))?;
                        sp!(self, self.b.store(dst, x, None, []))?
                    }
                }
            }
        }
        Ok(())
    }

    /// Writes the `OUT` registers' words to the capture buffer at this
    /// vertex's place.
    fn capture_outputs(
        &mut self,
        array: Word,
        len: u32,
        buffer: super::module::WordBuffer,
        index: Word,
    ) -> Result<(), Error> {
        let (i32_, u32_, u4) = (self.t.i32, self.t.u32, self.t.u4);
        let v = sp!(self, self.b.load(i32_, None, index, None, []))?;
        let v = sp!(self, self.b.bitcast(u32_, None, v))?;
        let stride = self.c_u32(4 * len);
        let base = sp!(self, self.b.i_mul(u32_, None, v, stride))?;
        let p = self.ptr(StorageClass::StorageBuffer, u32_);
        let zero = self.c_u32(0);
        for n in 0..len {
            let reg = self.reg_ptr_direct(array, n);
            let bits = sp!(self, self.b.load(u4, None, reg, None, []))?;
            for c in 0..4 {
                let w = sp!(self, self.b.composite_extract(u32_, None, bits, [c]))?;
                let off = self.c_u32(4 * n + c);
                let at = sp!(self, self.b.i_add(u32_, None, base, off))?;
                let dst = sp!(self, self.b.access_chain(p, None, buffer.var, [zero, at]))?;
                sp!(self, self.b.store(dst, w, None, []))?;
            }
        }
        Ok(())
    }

    /// The `int` built-in input behind a vertex or fragment system value,
    /// replicated to four channels (a fragment `POSITION`: `FragCoord`'s
    /// bits).
    pub(crate) fn int_system_value(&mut self, name: SemanticName) -> Result<Option<Word>, Error> {
        let Some(&var) = self.int_builtins.get(&name) else {
            return Ok(None);
        };
        let (i32_, u32_, u4) = (self.t.i32, self.t.u32, self.t.u4);
        if name == SemanticName::Position {
            let v = self.load_frag_coord(var)?;
            return Ok(Some(sp!(self, self.b.bitcast(u4, None, v))?));
        }
        if name == SemanticName::SampleMask {
            // the mask in .x, zeros in .yzw (the machine's)
            let p = self.ptr(StorageClass::Input, i32_);
            let zero = self.c_u32(0);
            let first = sp!(self, self.b.access_chain(p, None, var, [zero]))?;
            let v = sp!(self, self.b.load(i32_, None, first, None, []))?;
            let u = sp!(self, self.b.bitcast(u32_, None, v))?;
            return Ok(Some(sp!(
                self,
                self.b.composite_construct(u4, None, [u, zero, zero, zero])
            )?));
        }
        let v = sp!(self, self.b.load(i32_, None, var, None, []))?;
        let u = sp!(self, self.b.bitcast(u32_, None, v))?;
        Ok(Some(sp!(
            self,
            self.b.composite_construct(u4, None, [u, u, u, u])
        )?))
    }

    /// A tessellation shader's `PatchVertices` (declared on first use),
    /// `None` in the other stages.
    fn patch_vertices(&mut self) -> Result<Option<Word>, Error> {
        if !self.is_tessellation() {
            return Ok(None);
        }
        self.declare_int_builtin(SemanticName::VerticesIn);
        let var = self.int_builtins[&SemanticName::VerticesIn];
        let i32_ = self.t.i32;
        Ok(Some(sp!(self, self.b.load(i32_, None, var, None, []))?))
    }

    /// Declares the `int` built-in of a vertex or fragment system value.
    pub(crate) fn declare_int_builtin(&mut self, name: SemanticName) {
        let which = match (self.shader.processor, name) {
            (Processor::Vertex, SemanticName::VertexId) => BuiltIn::VertexIndex,
            (Processor::Vertex, SemanticName::InstanceId) => BuiltIn::InstanceIndex,
            (Processor::Fragment, SemanticName::SampleId) => {
                self.b.capability(Capability::SampleRateShading);
                BuiltIn::SampleId
            }
            (Processor::Geometry, SemanticName::PrimId) => BuiltIn::PrimitiveId,
            (Processor::Geometry | Processor::TessCtrl, SemanticName::InvocationId) => {
                BuiltIn::InvocationId
            }
            (Processor::TessCtrl | Processor::TessEval, SemanticName::PrimId) => {
                BuiltIn::PrimitiveId
            }
            (Processor::TessCtrl | Processor::TessEval, SemanticName::VerticesIn) => {
                BuiltIn::PatchVertices
            }
            (Processor::Fragment, SemanticName::PrimId) => {
                self.b.capability(Capability::Geometry);
                BuiltIn::PrimitiveId
            }
            (Processor::Fragment, SemanticName::SampleMask) => {
                // `int SampleMask[1]`: the samples the invocation covers
                if !self.int_builtins.contains_key(&name) {
                    let i32_ = self.t.i32;
                    let one = self.c_u32(1);
                    let arr = self.b.type_array(i32_, one);
                    let var = self.builtin(StorageClass::Input, arr, BuiltIn::SampleMask);
                    self.int_builtins.insert(name, var);
                }
                return;
            }
            (Processor::Fragment, SemanticName::Position) => {
                // a float built-in: `FragCoord`, read as its bits
                if !self.int_builtins.contains_key(&name) {
                    let f4 = self.t.f4;
                    let var = self.builtin(StorageClass::Input, f4, BuiltIn::FragCoord);
                    self.int_builtins.insert(name, var);
                }
                return;
            }
            _ => return,
        };
        if self.int_builtins.contains_key(&name) {
            return;
        }
        let i32_ = self.t.i32;
        let var = self.builtin(StorageClass::Input, i32_, which);
        if self.shader.processor == Processor::Fragment {
            // integer fragment inputs are flat
            self.b.decorate(var, Decoration::Flat, []);
        }
        self.int_builtins.insert(name, var);
    }

    /// INTERP_CENTROID, INTERP_SAMPLE and INTERP_OFFSET of a fragment
    /// shader: the varying of `IN[k]` (a direct register) evaluated at the
    /// centroid, at sample src1.x, or at the offset src1.xy from the pixel
    /// centre (GLSL's `InterpolateAt*`), with the source's swizzle.
    pub(crate) fn interpolate(&mut self, inst: &tgsi_ir::ir::Instruction) -> Result<(), Error> {
        use rspirv::spirv::GlslStd450Op;
        use tgsi_ir::opcode::{Opcode, OperandType};
        let op = inst.opcode;
        let src = &inst.src[0];
        if self.shader.processor != Processor::Fragment
            || src.reg.file != File::Input
            || src.reg.index.indirect.is_some()
            || src.absolute
            || src.negate
        {
            return Err(self.fail(format!(
                "{op} is translated for a direct IN register of a fragment shader, without modifiers"
            )));
        }
        let n = src.reg.index.offset as u32;
        let var = match self.in_sources.iter().find(|(k, _)| *k == n) {
            Some((_, Source::Vec4(var))) => *var,
            _ => {
                return Err(self.fail(format!(
                    "{op} of IN[{n}], which is not an interpolated varying"
                )));
            }
        };
        self.b.capability(Capability::InterpolationFunction);
        let f4 = self.t.f4;
        let v = match op {
            Opcode::INTERP_CENTROID => self.gl(f4, GlslStd450Op::InterpolateAtCentroid, &[var])?,
            Opcode::INTERP_SAMPLE => {
                self.b.capability(Capability::SampleRateShading);
                let s = self.fetch(&inst.src[1], OperandType::Int)?;
                let i32_ = self.t.i32;
                let k = sp!(self, self.b.composite_extract(i32_, None, s, [0]))?;
                self.gl(f4, GlslStd450Op::InterpolateAtSample, &[var, k])?
            }
            _ => {
                let o = self.fetch(&inst.src[1], OperandType::Float)?;
                let f2 = self.b.type_vector(self.t.f32, 2);
                let o = sp!(self, self.b.vector_shuffle(f2, None, o, o, [0, 1]))?;
                self.gl(f4, GlslStd450Op::InterpolateAtOffset, &[var, o])?
            }
        };
        let sw: Vec<u32> = src.swizzle.0.iter().map(|c| *c as u32).collect();
        let mut v = sp!(self, self.b.vector_shuffle(f4, None, v, v, sw))?;
        if inst.saturate {
            v = self.saturate(v)?;
        }
        self.store_result(inst, v)
    }
}
