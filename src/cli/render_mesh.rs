//! `tgsi render --mesh`: an OBJ mesh drawn through the library's pipeline
//! (vertex shader, clipping, rasterization, depth test, fragment shader)
//! into the render target.
//!
//! * The shaders of a draw are [`Stages`], loaded from the list of files
//!   the options name (one [`StageShader`] per stage, TGSI or Direct3D).
//! * Each mesh vertex feeds the vertex shader: TGSI `IN[0]` = position
//!   (x, y, z, 1), `IN[1]` = normal (x, y, z, 0), `IN[2]` = texture
//!   coordinate (u, v, 0, 1); a Direct3D vertex shader gets the same values
//!   by input-signature name (`POSITION`, `NORMAL`, `TEXCOORD0`).
//! * The mesh is one indexed triangle list; with a depth target the test is
//!   `less` with writes.
//! * A multisampled target is resolved (the average of its samples) before
//!   it becomes a PNG.

use super::input::{TextSource, display_name, load_runnable, read_text};
use anyhow::{Result, anyhow, bail};
use std::path::Path;
use tgsi::enums::{Processor, TextureTarget};
use tgsi::exec::{Limits, Numerics, Program, Resources, Stats};
use tgsi::mesh_io::{Mesh, parse_obj};
use tgsi::pipeline::{
    self as pl, BasicTopology, CompareFunc, CullMode, DepthFormat, DepthState, DepthTarget,
    DrawCall, FrontFace, RenderState, Topology, VertexInput,
};
use tgsi::shader_test::Attribute;
use tgsi::shader_test::d3d::D3dShader;
use tgsi::texture::{Format, Texture};

/// One compiled shader of a draw.
pub struct StageShader {
    /// The file's display name, for messages.
    pub name: String,
    /// The TGSI shader (a Direct3D program's lowering), for the Vulkan
    /// engine.
    pub shader: tgsi::Shader,
    pub program: Program,
    /// The lowering of a Direct3D program (bindings, signatures).
    pub d3d: Option<D3dShader>,
    /// TGSI text as written, for errors placed in it.
    pub source: Option<TextSource>,
}

impl StageShader {
    /// A run error of this shader, placed in its source when it can be.
    pub fn run_error(&self, e: &tgsi::exec::ExecError) -> anyhow::Error {
        super::input::run_error(&self.name, self.source.as_ref(), e)
    }

    /// What a draw needs beyond the program: the Direct3D lowering's
    /// bindings, or the TGSI text that places errors.
    pub fn interface(&self) -> Option<&dyn pl::StageInterface> {
        match (&self.d3d, &self.source) {
            (Some(d), _) => Some(d),
            (None, Some(t)) => Some(t),
            (None, None) => None,
        }
    }

    /// Runs `run` with the resources where this shader reads them (a
    /// Direct3D shader's registers moved to its TGSI bindings).
    pub fn bind<T>(&self, res: &mut Resources, run: impl FnOnce(&mut Resources) -> T) -> T {
        match &self.d3d {
            Some(d) => d.bind(res, run),
            None => run(res),
        }
    }
}

/// A shader file named on the command line: what the option that names it
/// takes (for messages), its path and the stage it must be.
pub struct ShaderFile<'a> {
    /// E.g. "--vertex takes vertex shaders".
    pub expects: &'static str,
    pub path: &'a Path,
    pub processor: Processor,
}

/// The shaders of a draw, one per stage.
#[derive(Default)]
pub struct Stages {
    pub stages: Vec<(Processor, StageShader)>,
}

impl Stages {
    /// Loads, validates and compiles every file (TGSI text, SM4/SM5
    /// assembly or DXBC), checking that each is the stage its option names.
    /// `None` once a file's diagnostics are printed to stderr.
    pub fn load(files: &[ShaderFile<'_>]) -> Result<Option<Stages>> {
        let mut stages = Stages::default();
        for file in files {
            let Some(loaded) = load_runnable(file.path)? else {
                return Ok(None);
            };
            let name = loaded.name;
            if loaded.shader.processor != file.processor {
                bail!(
                    "{name}: {}; this is a {} shader",
                    file.expects,
                    loaded.shader.processor
                );
            }
            let numerics = if loaded.d3d.is_some() {
                Numerics::Direct3D
            } else {
                Numerics::Ieee
            };
            let program = tgsi::jit::compile(&loaded.shader, numerics)
                .map_err(|e| super::input::run_error(&name, loaded.source.as_ref(), &e))?;
            super::engine_note(&name, &program);
            stages.stages.push((
                file.processor,
                StageShader {
                    name,
                    shader: loaded.shader,
                    program,
                    d3d: loaded.d3d,
                    source: loaded.source,
                },
            ));
        }
        Ok(Some(stages))
    }

    /// The shader of a stage, if one was given.
    pub fn get(&self, processor: Processor) -> Option<&StageShader> {
        self.stages
            .iter()
            .find(|(p, _)| *p == processor)
            .map(|(_, s)| s)
    }
}

/// Reads an OBJ file; errors name the file, line and column. A mesh without
/// triangles is an error.
pub fn load_mesh(path: &Path) -> Result<Mesh> {
    let name = display_name(path);
    let text = read_text(path)?;
    let mesh =
        parse_obj(&text).map_err(|e| anyhow!("{name}:{}:{}: {}", e.line, e.column, e.message))?;
    if mesh.indices.is_empty() {
        bail!("{name}: the mesh has no faces (`f` statements)");
    }
    Ok(mesh)
}

/// The attributes a mesh gives each vertex, in `IN` order for TGSI, with the
/// Direct3D semantic that names each: position (x, y, z, 1), normal
/// (x, y, z, 0), texture coordinate (u, v, 0, 1).
pub const MESH_ATTRIBUTES: [&str; 3] = ["POSITION", "NORMAL", "TEXCOORD"];

/// The three attribute values of every mesh vertex, as words.
fn attribute_rows(mesh: &Mesh) -> Vec<Vec<[u32; 4]>> {
    let w = |v: [f32; 4]| v.map(f32::to_bits);
    mesh.vertices
        .iter()
        .map(|v| {
            let [x, y, z] = v.position;
            let [nx, ny, nz] = v.normal;
            let [s, t] = v.texcoord;
            vec![w([x, y, z, 1.0]), w([nx, ny, nz, 0.0]), w([s, t, 0.0, 1.0])]
        })
        .collect()
}

/// The vertex input of the mesh for `vs`: `IN[0..3]` of a TGSI shader; for a
/// Direct3D shader, the input-signature elements `POSITION`, `NORMAL` and
/// `TEXCOORD` (index 0); any other element it reads (system values aside)
/// is an error.
pub fn mesh_input(mesh: &Mesh, vs: &StageShader) -> Result<VertexInput> {
    Ok(VertexInput::from_rows(&mesh_rows(mesh, vs)?))
}

/// Each mesh vertex's input registers for `vs` (what [`mesh_input`]
/// holds).
pub fn mesh_rows(mesh: &Mesh, vs: &StageShader) -> Result<Vec<Vec<[u32; 4]>>> {
    let rows = attribute_rows(mesh);
    let Some(d3d) = &vs.d3d else {
        return Ok(rows);
    };
    let mut attributes = Vec::new();
    let mut columns = Vec::new();
    for e in &d3d.signatures.inputs {
        let name = e.semantic_name.to_ascii_uppercase();
        if name.starts_with("SV_") {
            continue;
        }
        let column = MESH_ATTRIBUTES
            .iter()
            .position(|a| *a == name)
            .filter(|_| e.semantic_index == 0);
        let Some(column) = column else {
            bail!(
                "{}: the vertex shader reads {}{}, which a mesh does not give (it gives POSITION, NORMAL and TEXCOORD0)",
                vs.name,
                e.semantic_name,
                e.semantic_index
            );
        };
        if !columns.contains(&column) {
            attributes.push(Attribute::Semantic(name, 0));
            columns.push(column);
        }
    }
    let picked: Vec<Vec<[u32; 4]>> = rows
        .iter()
        .map(|r| columns.iter().map(|&c| r[c]).collect())
        .collect();
    d3d.vertex_inputs(&attributes, &picked)
        .map_err(|e| anyhow!("{}: {e}", vs.name))
}

/// The render state of a mesh draw.
pub fn mesh_state(depth: bool, cull: CullMode, front: FrontFace) -> RenderState {
    let mut state = RenderState {
        cull,
        front,
        ..RenderState::default()
    };
    if depth {
        state.depth = DepthState {
            enabled: true,
            func: CompareFunc::Less,
            write: true,
        };
    }
    state
}

/// What the shaders of a mesh draw ran.
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshStats {
    pub vertex: Stats,
    pub fragment: Stats,
}

/// One instance of the mesh's indexed vertices as `topology`.
fn mesh_call(mesh: &Mesh, topology: Topology) -> Result<DrawCall<'_>> {
    DrawCall::indexed(topology, &mesh.indices)
        .ok_or_else(|| anyhow!("the mesh has too many indices"))
}

/// Draws the mesh's triangles: the vertex shader, then the rasterizer with
/// the fragment shader into `targets` (and `depth`).
#[allow(clippy::too_many_arguments)]
pub fn draw_mesh(
    vs: &StageShader,
    fs: &StageShader,
    input: &VertexInput,
    mesh: &Mesh,
    res: &mut Resources,
    state: &RenderState,
    targets: &mut [Texture],
    depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<MeshStats> {
    let call = mesh_call(mesh, Topology::Basic(BasicTopology::TriangleList))?;
    let (stream, vertex) = vs
        .bind(res, |r| {
            pl::shade_vertices(&vs.program, r, input, &call, false, false, limits)
        })
        .map_err(|e| vs.run_error(&e))?;
    let layout = match &vs.d3d {
        Some(d) => d.output_layout(&vs.program),
        None => pl::OutputLayout::of(&vs.program),
    };
    let linkage = pl::Linkage::by_semantics(&layout, &fs.program);
    let fragment = fs
        .bind(res, |r| {
            pl::rasterize(
                &stream,
                &layout,
                &linkage,
                &fs.program,
                r,
                state,
                targets,
                depth,
                limits,
            )
        })
        .map_err(|e| fs.run_error(&e))?;
    // its buffers serve the next frame's vertex stage
    stream.recycle();
    Ok(MeshStats { vertex, fragment })
}

/// Draws the mesh through every stage given (vertex, tess-control and
/// tess-eval with the tessellator, geometry, fragment): with tessellation
/// each triangle is a patch of its 3 vertices. Returns what all stages ran.
#[allow(clippy::too_many_arguments)]
pub fn draw_mesh_stages(
    stages: &Stages,
    input: &VertexInput,
    mesh: &Mesh,
    res: &mut Resources,
    state: &RenderState,
    targets: &mut [Texture],
    depth: Option<&mut DepthTarget>,
    limits: &Limits,
) -> Result<Stats> {
    let stage = |p: Processor| {
        stages.get(p).map(|s| pl::Stage {
            program: &s.program,
            interface: s.interface(),
        })
    };
    let (Some(vs), Some(fs)) = (stage(Processor::Vertex), stage(Processor::Fragment)) else {
        bail!("a mesh draw needs a vertex and a fragment shader");
    };
    let shaders = pl::Shaders {
        vs,
        tcs: stage(Processor::TessCtrl),
        tes: stage(Processor::TessEval),
        gs: stage(Processor::Geometry),
        fs,
    };
    let topology = if shaders.tcs.is_some() {
        Topology::PatchList(3)
    } else {
        Topology::Basic(BasicTopology::TriangleList)
    };
    let call = mesh_call(mesh, topology)?;
    pl::draw_with(&shaders, res, input, &call, state, targets, depth, limits)
        .map_err(|e| anyhow!("mesh draw: {e}"))
}

/// A render target of `format`, `samples` per pixel (2D, or 2D MSAA).
pub fn new_target(format: Format, width: u32, height: u32, samples: u32) -> Result<Texture> {
    let target = if samples > 1 {
        TextureTarget::Msaa2D
    } else {
        TextureTarget::Tex2D
    };
    Texture::new(target, format, [width, height, 1], 1, 1, samples)
        .map_err(|e| anyhow!("render target {width}x{height} with {samples} samples: {e}"))
}

/// Fills every texel and sample of level 0 with `color` (floats, linear).
pub fn clear_target(t: &mut Texture, color: [f32; 4]) {
    clear_target_on(t, color, 1);
}

/// [`clear_target`] on up to `threads` threads (the same bytes): the
/// level's whole texels in contiguous parts of whole texels, one a thread.
pub fn clear_target_on(t: &mut Texture, color: [f32; 4], threads: usize) {
    let bpt = t.format.bytes_per_texel();
    let mut texel = vec![0u8; bpt];
    t.format.encode_into(color.map(f32::to_bits), &mut texel);
    let Some(level) = t.levels.first_mut() else {
        return;
    };
    let n = level.len() / bpt * bpt;
    if n == 0 {
        return;
    }
    tgsi::pipeline::merge::in_parts(&mut level[..n], bpt, threads, |part| {
        tgsi::pipeline::merge::fill_by_doubling(part, &texel)
    });
}

/// A single-sample copy of a multisampled target: each pixel the average of
/// its samples' decoded (linear) values, encoded again in the same format.
pub fn resolve(t: &Texture) -> Result<Texture> {
    resolve_on(t, 1)
}

/// [`resolve`] with its rows shared by up to `threads` threads (the same
/// bits: each pixel is its own samples' average).
pub fn resolve_on(t: &Texture, threads: usize) -> Result<Texture> {
    if t.samples <= 1 {
        return Ok(t.clone());
    }
    let mut out = new_target(t.format, t.width, t.height, 1)?;
    resolve_into(t, &mut out, threads)?;
    Ok(out)
}

/// [`resolve_on`] into `out`, a one-sample target of `t`'s format and size
/// (kept from frame to frame, as a renderer keeps its resolve target).
pub fn resolve_into(t: &Texture, out: &mut Texture, threads: usize) -> Result<()> {
    if (out.format, out.width, out.height, out.samples) != (t.format, t.width, t.height, 1) {
        bail!(
            "a resolve target must be one-sample {:?} {}x{}",
            t.format,
            t.width,
            t.height
        );
    }
    let bpt = t.format.bytes_per_texel();
    let samples = t.samples.max(1) as usize;
    let src = t
        .levels
        .first()
        .ok_or_else(|| anyhow!("a render target without storage"))?;
    let level = out
        .levels
        .first_mut()
        .ok_or_else(|| anyhow!("a render target without storage"))?;
    // a pixel's samples lie side by side: (y * width + x) * samples + s
    let average = |dst: &mut [u8], src: &[u8]| {
        tgsi::pipeline::resolve::average_samples(t.format, samples, dst, src)
    };
    if threads <= 1 {
        average(level, src);
        return Ok(());
    }
    let rows = (t.height as usize).div_ceil(threads.min(16));
    let row = t.width as usize * bpt;
    let shares = level
        .chunks_mut(rows * row)
        .zip(src.chunks(rows * row * samples));
    tgsi::exec::parallel::each(shares.collect(), |(dst, src)| average(dst, src));
    Ok(())
}

/// `R,G,B,A` (or `R,G,B`, alpha 1): the clear colour.
pub fn parse_clear(text: &str) -> Result<[f32; 4]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if !(3..=4).contains(&parts.len()) {
        bail!("--clear `{text}`: expected R,G,B,A (or R,G,B), e.g. 0.1,0.1,0.15,1");
    }
    let mut c = [0.0, 0.0, 0.0, 1.0];
    for (k, p) in parts.iter().enumerate() {
        let v: f32 = p
            .parse()
            .map_err(|_| anyhow!("--clear `{text}`: `{p}` is not a number"))?;
        if !v.is_finite() {
            bail!("--clear `{text}`: `{p}` is not a finite number");
        }
        c[k] = v;
    }
    Ok(c)
}

/// A value of one of the pipeline's name tables (`--depth`, `--cull`,
/// `--front`), or an error listing the names.
pub fn parse_named<T: Copy>(text: &str, option: &str, table: &[(T, &'static str)]) -> Result<T> {
    table
        .iter()
        .find(|(_, n)| *n == text)
        .map(|(v, _)| *v)
        .ok_or_else(|| {
            let names: Vec<&str> = table.iter().map(|(_, n)| *n).collect();
            anyhow!("{option} `{text}`: expected one of {}", names.join(", "))
        })
}

/// `--samples` values: 1, 2, 4, 8 or 16.
pub fn sample_count(text: &str) -> Result<u32> {
    match text.trim().parse::<u32>() {
        Ok(n @ (1 | 2 | 4 | 8 | 16)) => Ok(n),
        _ => bail!("--samples `{text}`: expected 1, 2, 4, 8 or 16"),
    }
}

/// `--depth` values.
pub fn depth_format(text: &str) -> Result<DepthFormat> {
    parse_named(text, "--depth", DepthFormat::ALL)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(text: &str) -> StageShader {
        let (shader, _) = tgsi::assemble(text).unwrap_or_else(|e| panic!("{e}"));
        StageShader {
            name: "test".into(),
            program: tgsi::jit::compile(&shader, tgsi::exec::Numerics::Ieee).unwrap(),
            shader,
            d3d: None,
            source: None,
        }
    }

    /// A colour clear on several threads gives the bytes of one thread, on
    /// targets large enough to be split and of texels of 4 and 16 bytes.
    #[test]
    fn colour_clears_on_several_threads_give_the_same_bytes() {
        for (format, w, h) in [
            ("rgba8_srgb", 1024, 768),
            ("rgba32f", 333, 517),
            ("rgba8", 3, 3),
        ] {
            let format = Format::from_short_name(format).unwrap();
            let mut one = new_target(format, w, h, 1).unwrap();
            let mut two = new_target(format, w, h, 1).unwrap();
            two.levels[0].fill(0xAB);
            let color = [0.25, 0.5, 0.75, 1.0];
            clear_target_on(&mut one, color, 1);
            clear_target_on(&mut two, color, 2);
            assert_eq!(one.levels[0], two.levels[0]);
            let bpt = format.bytes_per_texel();
            let mut want = vec![0u8; bpt];
            format.encode_into(color.map(f32::to_bits), &mut want);
            assert!(one.levels[0].chunks(bpt).all(|t| t == want));
        }
    }

    /// Two triangles of a square, the second wound the other way.
    fn square() -> Mesh {
        parse_obj(
            "v -1 -1 0.5\nv 1 -1 0.5\nv 1 1 0.5\nv -1 1 0.5\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
             f 1/1 4/4 3/3\nf 1/1 2/2 3/3\n",
        )
        .unwrap()
    }

    #[test]
    fn tgsi_vertex_inputs_are_position_normal_texcoord() {
        let mesh = parse_obj("v 1 2 3\nvt 0.25 0.75\nvn 0 0 1\nf 1/1/1 1/1/1 1/1/1\n").unwrap();
        let vs = program("VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n0: MOV OUT[0], IN[0]\n1: END\n");
        let input = mesh_input(&mesh, &vs).unwrap();
        let mut regs = [[0u32; 4]; 3];
        input.fetch(0, 0, &mut regs);
        let f = |v: [f32; 4]| v.map(f32::to_bits);
        assert_eq!(regs[0], f([1.0, 2.0, 3.0, 1.0]));
        assert_eq!(regs[1], f([0.0, 0.0, 1.0, 0.0]));
        assert_eq!(regs[2], f([0.25, 0.75, 0.0, 1.0]));
    }

    #[test]
    fn a_square_covers_the_target_and_culling_drops_one_winding() {
        let vs = program(
            "VERT\nDCL IN[0]\nDCL IN[2]\nDCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\n\
             0: MOV OUT[0], IN[0]\n1: MOV OUT[1], IN[2]\n2: END\n",
        );
        let fs = program(
            "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL OUT[0], COLOR\n\
             0: MOV OUT[0], IN[0]\n1: END\n",
        );
        let mesh = square();
        let input = mesh_input(&mesh, &vs).unwrap();
        let run = |cull: CullMode| {
            let mut targets = vec![new_target(Format::Rgba8Unorm, 8, 8, 1).unwrap()];
            let mut depth = DepthTarget::new(DepthFormat::D32Float, 8, 8, 1).unwrap();
            let state = mesh_state(true, cull, FrontFace::Clockwise);
            draw_mesh(
                &vs,
                &fs,
                &input,
                &mesh,
                &mut Resources::default(),
                &state,
                &mut targets,
                Some(&mut depth),
                &Limits::default(),
            )
            .unwrap();
            let covered = (0..64)
                .filter(|i| targets[0].levels[0][i * 4 + 3] != 0)
                .count();
            (covered, depth.depth_at(3, 3, 0).unwrap())
        };
        // Both triangles: every pixel, depth 0.5 written.
        assert_eq!(run(CullMode::None), (64, 0.5));
        // The first triangle (1, 4, 3) is clockwise on screen (y down):
        // culling back faces keeps it, culling front faces keeps the other.
        let (back, _) = run(CullMode::Back);
        let (front, _) = run(CullMode::Front);
        assert_eq!(back + front, 64);
        assert!(back > 0 && front > 0);
    }

    #[test]
    fn resolve_averages_samples() {
        let mut t = new_target(Format::from_short_name("rgba32f").unwrap(), 1, 1, 4).unwrap();
        for (s, v) in [0.0f32, 1.0, 1.0, 0.0].iter().enumerate() {
            let o = s * 16;
            t.format.encode_into(
                [*v, 0.5, 0.0, 1.0].map(f32::to_bits),
                &mut t.levels[0][o..o + 16],
            );
        }
        let r = resolve(&t).unwrap();
        assert_eq!(r.samples, 1);
        assert_eq!(
            r.texel(0, 0, 0, 0, 0),
            [0.5f32, 0.5, 0.0, 1.0].map(f32::to_bits)
        );
    }

    #[test]
    fn option_values() {
        assert_eq!(parse_clear("0.1, 0.2,0.3").unwrap(), [0.1, 0.2, 0.3, 1.0]);
        assert!(
            parse_clear("1,2")
                .unwrap_err()
                .to_string()
                .contains("R,G,B,A")
        );
        assert!(
            parse_clear("1,x,0,0")
                .unwrap_err()
                .to_string()
                .contains("`x`")
        );
        assert_eq!(sample_count("4").unwrap(), 4);
        assert!(sample_count("3").is_err() && sample_count("32").is_err());
        assert_eq!(depth_format("d24s8").unwrap(), DepthFormat::D24S8);
        let e = depth_format("d32").unwrap_err().to_string();
        assert!(e.contains("d32f, d24s8, d16"), "{e}");
        assert_eq!(
            parse_named("ccw", "--front", FrontFace::ALL).unwrap(),
            FrontFace::CounterClockwise
        );
        assert!(
            parse_named("sideways", "--cull", CullMode::ALL)
                .unwrap_err()
                .to_string()
                .contains("none, front, back")
        );
    }

    #[test]
    fn obj_errors_name_file_line_and_column() {
        let dir = std::env::temp_dir().join(format!("tgsi-mesh-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.obj");
        std::fs::write(&path, "v 0 0 0\nv 1 x 0\n").unwrap();
        let e = load_mesh(&path).unwrap_err().to_string();
        assert!(e.contains("bad.obj:2:"), "{e}");
        std::fs::write(&path, "v 0 0 0\n").unwrap();
        let e = load_mesh(&path).unwrap_err().to_string();
        assert!(e.contains("no faces"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
