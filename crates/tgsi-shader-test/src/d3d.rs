//! Direct3D shaders for `.shader_test` files, `tgsi run` and `tgsi render`:
//! SM4/SM5 assembly or a DXBC container is checked (assembled or decoded,
//! then validated), lowered to TGSI ([`tgsi_d3d::lower`]) and compiled
//! for the machine; [`D3dShader`] then feeds it the way Direct3D would:
//!
//! * resources by register number: `[constant N]` / `--const N` is `cbN`,
//!   `[texture N]` is `tN` (its texel bytes for a raw or structured `tN`;
//!   without a `[texture N]`, the bytes of `[buffer N]`),
//!   `[sampler N]` is `sN`, `[buffer N]` is a raw or structured `uN`,
//!   `[image N]` a typed `uN`; the lowering's [`Binding`]s say where each
//!   one lives in TGSI, so the test's resources are moved there for a run
//!   and the UAVs moved back afterwards ([`D3dShader::bind`]);
//! * vertex attributes by input-signature name (`POSITION`, `TEXCOORD1`) or
//!   `IN[n]` (= `vn`) ([`D3dShader::vertex_inputs`]), outputs by `o#`
//!   register ([`D3dShader::output_register`]);
//! * the `draw quad` inputs of a pixel shader: `SV_Position` and
//!   `SV_IsFrontFace` from the machine, the first `TEXCOORD` element (lowest
//!   semantic index) gets ((x+0.5)/W, (y+0.5)/H, 0, 1), every other input 0
//!   ([`D3dShader::quad`]).

use super::parse::Attribute;
use tgsi_d3d::lower::{Binding, D3dSlot, Lowered, Signatures};
use tgsi_d3d::signature::{SignatureElement, SignatureRole};
use tgsi_d3d::source_map::SourceMap;
use tgsi_exec::{Draw, Resources, Varying};
use tgsi_ir::diag::Diagnostics;
use tgsi_ir::enums::{File, SemanticName};

/// Why a Direct3D shader was refused.
#[derive(Clone, Debug)]
pub enum BuildError {
    /// Assembler or validator diagnostics, spans in the assembly text.
    Text(Diagnostics),
    /// A complete message (binary offsets, lowering, stage).
    Message(String),
}

/// A program that assembled (or decoded) and validated, with its signatures.
#[derive(Clone, Debug)]
pub struct Checked {
    pub program: tgsi_d3d::Program,
    pub signatures: Signatures,
}

/// Assembles and validates one SM4/SM5 program (fxc's or vkd3d's
/// spelling); the signatures come from the listing's tables or, without
/// them, from the declarations.
pub fn check_assembly(text: &str) -> Result<Checked, BuildError> {
    let a = tgsi_d3d::assemble::assemble_listing(text).map_err(BuildError::Text)?;
    let mut signatures = Signatures::default();
    for s in a.signatures {
        match s.kind.role() {
            SignatureRole::Input => signatures.inputs.extend(s.elements),
            SignatureRole::Output => signatures.outputs.extend(s.elements),
            SignatureRole::PatchConstant => signatures.patch_constants.extend(s.elements),
        }
    }
    Ok(Checked {
        program: a.program,
        signatures,
    })
}

/// Decodes and validates the one program of a DXBC container (or, without
/// the `DXBC` magic, a bare SHDR/SHEX token stream, whose signatures come
/// from its declarations). `name` labels byte offsets in messages.
pub fn check_container(bytes: &[u8], name: &str) -> Result<Checked, BuildError> {
    let message = |e: String| BuildError::Message(format!("error: {name}: {e}\n"));
    let (payload, offset, signatures) =
        if bytes.starts_with(b"DXBC") || tgsi_d3d::effect::is_raw_effect(bytes) {
            let mut programs =
                tgsi_d3d::lower::container_programs(bytes).map_err(|e| message(e.to_string()))?;
            // As Direct3D's runtime (and vkd3d-shader) do, a container whose
            // checksum does not match its bytes is refused; an all-zero checksum
            // (what tools that do not sign write) is accepted.
            if bytes.starts_with(b"DXBC")
                && let Ok(tgsi_d3d::container::ChecksumStatus::Mismatch { stored, .. }) =
                    tgsi_d3d::container::checksum_status(bytes)
                && stored != [0; 4]
            {
                let e = tgsi_d3d::container::verify_checksum(bytes)
                    .err()
                    .map_or_else(String::new, |e| e.to_string());
                return Err(message(e));
            }
            if programs.len() != 1 {
                return Err(message(format!(
                    "the container holds {} programs; one is needed",
                    programs.len()
                )));
            }
            let p = programs.remove(0);
            (p.payload, p.offset, Some(p.signatures))
        } else {
            (bytes.to_vec(), 0, None)
        };
    let program =
        tgsi_d3d::decode_program(&payload).map_err(|e| message(e.shifted(offset).to_string()))?;
    let map = SourceMap::from_payload(&payload, offset);
    let diags = tgsi_d3d::validate(&program, Some(&map));
    if diags.has_errors() {
        return Err(BuildError::Message(diags.render_binary(name)));
    }
    let signatures = signatures.unwrap_or_else(|| Signatures::from_declarations(&program));
    Ok(Checked {
        program,
        signatures,
    })
}

/// The words of a `dxbc-tpf-hex` body, and where each one is written.
#[derive(Debug)]
pub struct HexWords {
    /// Little-endian bytes of the words.
    pub bytes: Vec<u8>,
    /// Per word: its 1-based line in the body and 1-based column.
    pub places: Vec<(usize, usize)>,
}

impl HexWords {
    /// The body's line and column of the word holding byte `offset`.
    pub fn place_of(&self, offset: usize) -> Option<(usize, usize)> {
        self.places.get(offset / 4).copied()
    }
}

/// The bytes of a `dxbc-tpf-hex` body: little-endian 32-bit words of 8 hex
/// digits (`0x` optional), separated by whitespace or commas; `;`, `#` and
/// `//` start comments to the end of the line. An error names the body's
/// line and column (both from 1).
pub fn parse_hex(text: &str) -> Result<HexWords, (usize, usize, String)> {
    let mut words = HexWords {
        bytes: Vec::new(),
        places: Vec::new(),
    };
    for (n, line) in text.lines().enumerate() {
        let code = ["//", ";", "#"]
            .iter()
            .filter_map(|c| line.find(c))
            .min()
            .map_or(line, |k| &line[..k]);
        let mut rest = code;
        // the column of `rest`'s start, kept as the line is walked
        let mut column = 1;
        while let Some(start) = rest.find(|c: char| !(c.is_whitespace() || c == ',')) {
            column += rest[..start].chars().count();
            let tail = &rest[start..];
            let len = tail
                .find(|c: char| c.is_whitespace() || c == ',')
                .unwrap_or(tail.len());
            let word = &tail[..len];
            let digits = word
                .strip_prefix("0x")
                .or_else(|| word.strip_prefix("0X"))
                .unwrap_or(word);
            let value = (digits.len() == 8)
                .then(|| u32::from_str_radix(digits, 16).ok())
                .flatten()
                .ok_or_else(|| {
                    (
                        n + 1,
                        column,
                        format!(
                            "`{}` is not a 32-bit word of 8 hex digits",
                            tgsi_ir::diag::shown(word)
                        ),
                    )
                })?;
            words.bytes.extend_from_slice(&value.to_le_bytes());
            words.places.push((n + 1, column));
            column += word.chars().count();
            rest = &tail[len..];
        }
    }
    if words.bytes.is_empty() {
        return Err((1, 1, "the section holds no words".into()));
    }
    Ok(words)
}

/// True when `text` is one of fxc's listings rather than TGSI: its first
/// statement (past blank, `//` and preprocessor lines) is a shader-model
/// version (`ps_5_0`, `vs_4_0_level_9_3`, `lib_5_0`, `fx_5_0`), a Direct3D 9
/// version before an SM4 one (a level-9 target's listing), or an effect's
/// declarations (see [`tgsi_d3d::sniff`]).
pub fn is_assembly(text: &str) -> bool {
    tgsi_d3d::sniff::listing_kind(text).is_some()
}

/// A lowered Direct3D program and what is needed to feed it.
#[derive(Clone, Debug)]
pub struct D3dShader {
    pub lowered: Lowered,
    pub signatures: Signatures,
    /// The program as assembled or decoded (what a debugger shows).
    pub program: tgsi_d3d::Program,
}

impl D3dShader {
    /// The Direct3D instruction an execution error's TGSI instruction
    /// was lowered from: `Direct3D instruction N: \`text\``.
    pub fn source_of(&self, e: &tgsi_exec::ExecError) -> Option<String> {
        let k = *self.lowered.origins.get(e.instruction?)?;
        let inst = self.program.instructions.get(k)?;
        let text = tgsi_d3d::print::print_instruction(
            inst,
            self.program.version,
            &tgsi_d3d::PrintOptions::default(),
        );
        let text = text.lines().next().unwrap_or("").trim();
        Some(format!("Direct3D instruction {k}: `{text}`"))
    }

    /// `run` with the resources bound ([`D3dShader::bind`]); its error
    /// also names the Direct3D instruction ([`D3dShader::source_of`]).
    pub fn run_bound<T>(
        &self,
        res: &mut Resources,
        run: impl FnOnce(&mut Resources) -> Result<T, tgsi_exec::ExecError>,
    ) -> Result<T, tgsi_exec::ExecError> {
        self.bind(res, run).map_err(|e| match self.source_of(&e) {
            Some(d3d) => tgsi_exec::ExecError {
                message: format!("{} (in {d3d})", e.message),
                ..e
            },
            None => e,
        })
    }
}

/// What [`D3dShader::bind`] moved, to move the UAVs back.
enum Moved {
    Buffer { from: usize, to: usize },
    Image { from: usize, to: usize },
}

fn set<T: Clone>(list: &mut Vec<T>, index: usize, fill: T, value: T) {
    if list.len() <= index {
        list.resize(index + 1, fill);
    }
    list[index] = value;
}

fn take<T: Default>(list: &mut [T], index: usize) -> T {
    list.get_mut(index).map(std::mem::take).unwrap_or_default()
}

impl D3dShader {
    /// Lowers a checked program.
    pub fn lower(checked: Checked) -> Result<D3dShader, BuildError> {
        let lowered =
            tgsi_d3d::lower::lower(&checked.program, &checked.signatures).map_err(|e| {
                BuildError::Message(format!(
                    "error: the program cannot be lowered to TGSI: {e}\n"
                ))
            })?;
        Ok(D3dShader {
            lowered,
            signatures: checked.signatures,
            program: checked.program,
        })
    }

    /// Runs `run` with the resources of `res` (indexed by Direct3D register
    /// numbers) where the lowered shader reads them, then puts the UAVs
    /// back. Raw and structured `tN` read the level-0 bytes of texture N
    /// (without one, a copy of buffer N);
    /// a UAV counter is a 4-byte buffer that starts at 0 and stays in `res`
    /// for later runs.
    pub fn bind<T>(&self, res: &mut Resources, run: impl FnOnce(&mut Resources) -> T) -> T {
        let mut moved = Vec::new();
        for b in &self.lowered.bindings {
            self.bind_one(res, b, &mut moved);
        }
        let out = run(res);
        for m in moved.into_iter().rev() {
            match m {
                Moved::Buffer { from, to } => {
                    let v = take(&mut res.buffers, to);
                    set(&mut res.buffers, from, Vec::new(), v);
                }
                Moved::Image { from, to } => {
                    let v = take(&mut res.images, to);
                    set(&mut res.images, from, None, v);
                }
            }
        }
        out
    }

    fn bind_one(&self, res: &mut Resources, b: &Binding, moved: &mut Vec<Moved>) {
        let to = b.index as usize;
        match (b.slot, b.file) {
            (D3dSlot::ConstantBuffer { register, .. }, File::Const) => {
                let from = register as usize;
                if from != to {
                    let v = res.constants.get(from).cloned().unwrap_or_default();
                    set(&mut res.constants, to, Vec::new(), v);
                }
            }
            (D3dSlot::Texture { register, .. }, File::SamplerView) => {
                let from = register as usize;
                if from != to {
                    let v = res.textures.get(from).cloned().flatten();
                    set(&mut res.textures, to, None, v);
                }
            }
            (D3dSlot::Texture { register, .. }, File::Buffer) => {
                let bytes = res
                    .textures
                    .get(register as usize)
                    .and_then(|t| t.as_ref())
                    .and_then(|t| t.levels.first().cloned())
                    .or_else(|| res.buffers.get(register as usize).cloned())
                    .unwrap_or_default();
                set(&mut res.buffers, to, Vec::new(), bytes);
            }
            (D3dSlot::Sampler { register, .. }, File::Sampler) => {
                let from = register as usize;
                if from != to {
                    let v = res.samplers.get(from).cloned().unwrap_or_default();
                    set(&mut res.samplers, to, Default::default(), v);
                }
            }
            (D3dSlot::Uav { register, .. }, File::Image) => {
                let from = register as usize;
                if from != to {
                    let v = take(&mut res.images, from);
                    set(&mut res.images, to, None, v);
                    moved.push(Moved::Image { from, to });
                }
            }
            (D3dSlot::Uav { register, .. }, File::Buffer) => {
                let from = register as usize;
                if from != to {
                    let v = take(&mut res.buffers, from);
                    set(&mut res.buffers, to, Vec::new(), v);
                    moved.push(Moved::Buffer { from, to });
                }
            }
            (D3dSlot::UavCounter { .. }, File::Buffer)
                if res.buffers.get(to).is_none_or(|c| c.len() < 4) =>
            {
                set(&mut res.buffers, to, Vec::new(), vec![0; 4]);
            }
            (D3dSlot::TextureWithSampler { texture, sampler }, File::Sampler) => {
                let t = res.textures.get(texture as usize).cloned().flatten();
                set(&mut res.textures, to, None, t);
                let s = res
                    .samplers
                    .get(sampler as usize)
                    .cloned()
                    .unwrap_or_default();
                set(&mut res.samplers, to, Default::default(), s);
            }
            // Shared memory needs nothing; class-linkage tables stay zero
            // (every interface slot uses its first function table).
            _ => {}
        }
    }

    /// The input-signature element an attribute names.
    fn input_element(&self, name: &str, index: u32) -> Option<&SignatureElement> {
        self.signatures
            .inputs
            .iter()
            .find(|e| e.semantic_name.eq_ignore_ascii_case(name) && e.semantic_index == index)
    }

    /// The `IN` registers of every vertex from `[vertex data]` rows:
    /// `rows[v][a]` is attribute `attributes[a]` of vertex v. A named
    /// attribute fills its element's components in order (an element at
    /// `v1.zw` takes the attribute's x and y); `IN[n]` fills `vn`.
    pub fn vertex_inputs(
        &self,
        attributes: &[Attribute],
        rows: &[Vec<[u32; 4]>],
    ) -> Result<Vec<Vec<[u32; 4]>>, String> {
        use tgsi_d3d::enums::RegisterFile;
        // (attribute, d3d register, first component of the element)
        let mut sources = Vec::new();
        for (a, attribute) in attributes.iter().enumerate() {
            let (register, first) = match attribute {
                Attribute::Input(n) => (*n, 0),
                Attribute::Semantic(name, index) => {
                    let e = self.input_element(name, *index).ok_or_else(|| {
                        let names: Vec<String> = self
                            .signatures
                            .inputs
                            .iter()
                            .map(|e| format!("{}{}", e.semantic_name, e.semantic_index))
                            .collect();
                        format!(
                            "the vertex shader has no input {attribute} (its input signature: {})",
                            if names.is_empty() {
                                "empty".to_string()
                            } else {
                                names.join(", ")
                            }
                        )
                    })?;
                    (e.register, e.mask.trailing_zeros())
                }
            };
            sources.push((a, register, first));
        }
        let width = self
            .lowered
            .inputs
            .iter()
            .filter(|c| c.file == File::Input)
            .map(|c| c.index as usize + 1)
            .max()
            .unwrap_or(0);
        Ok(rows
            .iter()
            .map(|row| {
                let mut regs = vec![[0u32; 4]; width];
                for c in &self.lowered.inputs {
                    if c.d3d_file != RegisterFile::Input || c.file != File::Input {
                        continue;
                    }
                    for &(a, register, first) in &sources {
                        let k = u32::from(c.d3d_component).wrapping_sub(first);
                        if c.d3d_register == register
                            && k < 4
                            && let (Some(value), Some(reg)) =
                                (row.get(a), regs.get_mut(c.index as usize))
                        {
                            reg[c.component as usize & 3] = value[k as usize];
                        }
                    }
                }
                regs
            })
            .collect())
    }

    /// Register `oN` of one vertex's outputs (components no TGSI output
    /// carries read 0), or `None` when the shader writes no `oN`.
    pub fn output_register(&self, outputs: &[[u32; 4]], register: u32) -> Option<[u32; 4]> {
        use tgsi_d3d::enums::RegisterFile;
        let mut value = [0u32; 4];
        let mut found = false;
        for c in &self.lowered.outputs {
            if c.d3d_file == RegisterFile::Output
                && c.d3d_register == register
                && c.file == File::Output
            {
                found = true;
                if let Some(o) = outputs.get(c.index as usize) {
                    value[c.d3d_component as usize & 3] = o[c.component as usize & 3];
                }
            }
        }
        found.then_some(value)
    }

    /// The rasterizer's view of this shader's outputs: distances written
    /// to `SV_CullDistance` elements are cull distances, the others clip
    /// distances.
    pub fn output_layout(&self, program: &tgsi_exec::Program) -> tgsi_pipeline::OutputLayout {
        let mut layout = tgsi_pipeline::OutputLayout::of(program);
        let mut all = std::mem::take(&mut layout.clip);
        all.append(&mut layout.cull);
        for (reg, comp) in all {
            let cull = self.lowered.outputs.iter().any(|c| {
                c.file == File::Output
                    && c.index as usize == reg
                    && c.component as usize == comp
                    && c.signature
                        .as_ref()
                        .is_some_and(|(n, _)| n.eq_ignore_ascii_case("SV_CullDistance"))
            });
            if cull {
                layout.cull.push((reg, comp));
            } else {
                layout.clip.push((reg, comp));
            }
        }
        layout
    }

    /// The `draw quad` inputs of a W×H target for this pixel shader.
    pub fn quad(&self, width: u32, height: u32) -> Draw {
        use tgsi_d3d::enums::RegisterFile;
        let mut draw = Draw::full_quad(width, height);
        let uv = std::mem::take(&mut draw.varyings)
            .into_iter()
            .next()
            .map(|v| v.plane)
            .unwrap_or_default();
        let texcoord = self
            .signatures
            .inputs
            .iter()
            .filter(|e| e.semantic_name.eq_ignore_ascii_case("TEXCOORD"))
            .min_by_key(|e| e.semantic_index);
        let Some(e) = texcoord else {
            return draw;
        };
        let first = e.mask.trailing_zeros();
        for c in &self.lowered.inputs {
            let Some((SemanticName::Generic, g)) = c.semantic else {
                continue;
            };
            let k = u32::from(c.d3d_component).wrapping_sub(first);
            if c.d3d_file != RegisterFile::Input
                || c.d3d_register != e.register
                || e.mask & (1 << c.d3d_component) == 0
                || k >= 4
            {
                continue;
            }
            let at = match draw
                .varyings
                .iter()
                .position(|v| v.semantic == SemanticName::Generic && v.index == g)
            {
                Some(at) => at,
                None => {
                    draw.varyings.push(Varying {
                        semantic: SemanticName::Generic,
                        index: g,
                        plane: [[0.0; 3]; 4],
                    });
                    draw.varyings.len() - 1
                }
            };
            draw.varyings[at].plane[c.component as usize & 3] = uv[k as usize];
        }
        draw
    }
}

/// A Direct3D shader as a draw's stage: its registers bound as
/// [`D3dShader::bind`] does, `SV_CullDistance` outputs as cull distances,
/// and a hull shader's tessellator declarations.
impl tgsi_pipeline::StageInterface for D3dShader {
    fn with_resources(&self, res: &mut Resources, run: &mut dyn FnMut(&mut Resources)) {
        self.bind(res, run)
    }

    fn output_layout(&self, program: &tgsi_exec::Program) -> tgsi_pipeline::OutputLayout {
        D3dShader::output_layout(self, program)
    }

    fn tessellator_settings(&self) -> Option<Result<tgsi_pipeline::tessellator::Settings, String>> {
        self.lowered
            .tessellator
            .as_ref()
            .map(tgsi_d3d::lower::Tessellator::settings)
    }

    fn source_of(&self, e: &tgsi_exec::ExecError) -> Option<String> {
        D3dShader::source_of(self, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_words_become_little_endian_bytes() {
        assert_eq!(
            parse_hex("43425844 0x00000001 ; comment\n# more\n0A0B0C0D,")
                .unwrap()
                .bytes,
            vec![0x44, 0x58, 0x42, 0x43, 1, 0, 0, 0, 0x0d, 0x0c, 0x0b, 0x0a]
        );
        assert!(parse_hex("4342584").unwrap_err().2.contains("8 hex digits"));
        let words = parse_hex("43425844 0x00000001 ; comment\n# more\n  0A0B0C0D,").unwrap();
        assert_eq!(words.places, [(1, 1), (1, 10), (3, 3)]);
        assert_eq!(words.place_of(9), Some((3, 3)));
        assert_eq!(parse_hex("00000000\n 00000001 0000000g").unwrap_err().0, 2);
        assert_eq!(parse_hex("00000000\n 00000001 0000000g").unwrap_err().1, 11);
        assert!(parse_hex("4342584g").is_err());
        assert!(
            parse_hex("// nothing\n")
                .unwrap_err()
                .2
                .contains("no words")
        );
    }

    fn shader(text: &str) -> D3dShader {
        D3dShader::lower(check_assembly(text).unwrap_or_else(|e| panic!("{e:?}"))).unwrap()
    }

    #[test]
    fn vertex_attributes_follow_the_signature_elements() {
        // TEXCOORD1 sits in v1.zw: its attribute's x and y land in z and w.
        let s = shader(
            "// Input signature:\n//\n// Name                 Index   Mask Register SysValue  Format   Used\n\
             // -------------------- ----- ------ -------- -------- ------- ------\n\
             // POSITION                 0   xyzw        0     NONE   float   xyzw\n\
             // TEXCOORD                 0   xy          1     NONE   float   xy  \n\
             // TEXCOORD                 1     zw        1     NONE   float     zw\n//\n\
             vs_5_0\ndcl_input v0.xyzw\ndcl_input v1.xy\ndcl_input v1.zw\ndcl_output o0.xyzw\n\
             add o0.xyzw, v0.xyzw, v1.xyzw\nret\n",
        );
        let attrs = [
            Attribute::Semantic("TEXCOORD".into(), 1),
            Attribute::Semantic("POSITION".into(), 0),
        ];
        let rows = vec![vec![[7, 8, 9, 10], [1, 2, 3, 4]]];
        let inputs = s.vertex_inputs(&attrs, &rows).unwrap();
        assert_eq!(inputs[0][0], [1, 2, 3, 4]);
        assert_eq!(inputs[0][1], [0, 0, 7, 8]);
        let e = s
            .vertex_inputs(&[Attribute::Semantic("COLOR".into(), 0)], &rows)
            .unwrap_err();
        assert!(
            e.contains("no input COLOR0") && e.contains("TEXCOORD1"),
            "{e}"
        );
        assert_eq!(s.output_register(&[[5, 6, 7, 8]], 0), Some([5, 6, 7, 8]));
        assert_eq!(s.output_register(&[[5, 6, 7, 8]], 1), None);
    }

    #[test]
    fn raw_views_counters_and_moved_uavs_are_bound_by_register() {
        let s = shader(
            "cs_5_0\ndcl_globalFlags refactoringAllowed\ndcl_resource_raw t3\n\
             dcl_uav_structured u1, 4\ndcl_uav_raw u0\ndcl_temps 1\ndcl_thread_group 1, 1, 1\n\
             ld_raw r0.x, l(0), t3.xxxx\nimm_atomic_alloc r0.y, u1\nstore_raw u0.xy, l(0), r0.xyxx\nret\n",
        );
        let mut res = Resources::default();
        let fmt = tgsi_exec::texture::Format::R32Uint;
        let mut tex = tgsi_exec::texture::Texture::new(
            tgsi_ir::enums::TextureTarget::Buffer,
            fmt,
            [1, 1, 1],
            1,
            1,
            1,
        )
        .unwrap();
        tex.levels[0] = 42u32.to_le_bytes().to_vec();
        res.textures = vec![None, None, None, Some(tex)];
        res.buffers = vec![vec![0; 8], vec![0; 4]];
        let program = tgsi_exec::Program::compile(&s.lowered.shader).unwrap();
        for _ in 0..2 {
            s.bind(&mut res, |r| {
                program
                    .dispatch(r, [1, 1, 1], &tgsi_exec::Limits::default())
                    .unwrap()
            });
        }
        // t3's bytes were read; the counter kept counting across runs.
        assert_eq!(res.buffers[0], [42, 0, 0, 0, 1, 0, 0, 0]);
        assert_eq!(res.buffers[192 + 1], [2, 0, 0, 0]);
    }
}
