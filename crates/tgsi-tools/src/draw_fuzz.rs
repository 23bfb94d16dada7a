//! The differential fuzzer of draws (`tgsi fuzz --draws`): random
//! triangles, render states, targets, textures and fragment shaders, drawn
//! by the interpreter on one thread, by the compiled engine on three, and
//! by the compiled engine on one thread with one tile per shading batch
//! (no quads of several primitives packed together); every byte of the
//! colour and depth targets must agree. On a CPU without AVX-512 the
//! interpreter takes the compiled engine's two places.
//!
//! A case: a pass-through vertex shader over random clip-space triangles
//! (w from 0.25 to 4, so perspective interpolation and clipping matter)
//! with three attributes of random words (special floats included); a
//! fragment shader of random ALU and flow-control code (the generator of
//! [`crate::fuzz`], without memory access) reading the attributes
//! (perspective, linear and flat), now and then sampling a random
//! mipmapped texture (TEX, or TXL and SAMPLE_L at an immediate or a
//! register's LOD, SAMPLE_L's view operand swizzled now and then) through
//! a view that half the time swizzles its components, taking derivatives
//! or discarding; a random target format, sample count, culling, depth
//! test and blending.

use crate::fuzz::{Gen, IMMS, LAST_TEMP, Rng, TEMPS, pool};
use std::fmt::Write as _;
use tgsi_exec::texture::{Filter, Format, MipFilter, Sampler, Swizzle, Texture, View, Wrap};
use tgsi_exec::{Limits, Numerics, Resources};
use tgsi_ir::enums::TextureTarget;
use tgsi_jit::Engine;
use tgsi_pipeline::{
    BasicTopology, BlendFactor, BlendOp, CompareFunc, CullMode, DepthFormat, DepthTarget, DrawCall,
    FrontFace, RenderState, Topology, VertexInput,
};

/// The target's size (odd, so that partial tiles and quads occur).
const WIDTH: u32 = 37;
const HEIGHT: u32 = 29;

/// One random draw.
pub struct DrawCase {
    pub fragment: String,
    pub vertex: String,
    vertices: Vec<Vec<[u32; 4]>>,
    state: RenderState,
    format: Format,
    samples: u32,
    depth: Option<DepthFormat>,
    texture: Texture,
    view: View,
    sampler: Sampler,
    consts: Vec<u32>,
}

const VERTEX_SHADER: &str = "VERT\nDCL IN[0]\nDCL IN[1]\nDCL IN[2]\nDCL IN[3]\n\
    DCL OUT[0], POSITION\nDCL OUT[1], GENERIC[0]\nDCL OUT[2], GENERIC[1]\nDCL OUT[3], GENERIC[2]\n\
    MOV OUT[0], IN[0]\nMOV OUT[1], IN[1]\nMOV OUT[2], IN[2]\nMOV OUT[3], IN[3]\nEND\n";

/// A random float in [lo, hi) as bits.
fn uniform(rng: &mut Rng, lo: f32, hi: f32) -> u32 {
    let t = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
    (lo + (hi - lo) * t).to_bits()
}

fn pick<T: Copy>(rng: &mut Rng, items: &[T]) -> T {
    items[rng.below(items.len() as u64) as usize]
}

/// The fragment shader of a case: inputs into TEMP[0..3], random code,
/// TEMP[k] out, now and then a texture sample, derivatives or a discard.
fn fragment_shader(rng: &mut Rng) -> String {
    let mut head = String::from(
        "FRAG\nDCL IN[0], GENERIC[0], PERSPECTIVE\nDCL IN[1], GENERIC[1], LINEAR\n\
         DCL IN[2], GENERIC[2], CONSTANT\nDCL OUT[0], COLOR\nDCL SAMP[0]\nDCL SVIEW[0], 2D, FLOAT\n\
         DCL CONST[0][0..4]\nDCL ADDR[0]\n",
    );
    // the generator's loop counters and tests included
    let _ = writeln!(head, "DCL TEMP[0..{LAST_TEMP}]");
    // IMM[0..IMMS] random, then the ones the generator's flow control reads
    for k in 0..IMMS + 4 {
        let w: Vec<String> = (0..4).map(|_| rng.word().to_string()).collect();
        let _ = writeln!(head, "IMM[{k}] UINT32 {{{}}}", w.join(", "));
    }
    // a scale for texture coordinates (magnified samples), explicit LODs
    let _ = writeln!(head, "IMM[{}] FLT32 {{0.0625, 0.125, 0.25, 1.0}}", IMMS + 4);
    let _ = writeln!(head, "IMM[{}] FLT32 {{0.0, 1.5, 2.0, -1.0}}", IMMS + 5);
    let mut body = String::from("MOV TEMP[0], IN[0]\nMOV TEMP[1], IN[1]\nMOV TEMP[2], IN[2]\n");
    let _ = writeln!(body, "MOV TEMP[3], IMM[0]");
    let t = |rng: &mut Rng| rng.below(TEMPS);
    let mut sampled = None;
    if rng.chance(40) {
        // sample at the interpolated coordinates (implicit LOD from the quad)
        let (d, s) = (t(rng), rng.below(3));
        if rng.chance(50) {
            // coordinates that change slowly: most quads magnified
            let k = IMMS + 4;
            let c = pick(rng, &["x", "y", "z"]);
            let _ = writeln!(body, "MUL TEMP[{s}], TEMP[{s}], IMM[{k}].{c}{c}{c}{c}");
        }
        // implicit LOD, or an explicit one: one for all lanes or any
        // register's (per lane, NaN and huge among them)
        let lod = if rng.chance(50) {
            format!("IMM[{}].{}", IMMS + 5, pick(rng, &["x", "y", "z", "w"]))
        } else {
            format!("TEMP[{}].x", t(rng))
        };
        match rng.below(4) {
            0 => {
                let _ = writeln!(body, "MOV TEMP[{s}].w, {lod}");
                let _ = writeln!(body, "TXL TEMP[{d}], TEMP[{s}], SAMP[0], 2D");
            }
            1 => {
                // the view operand in order, or any order of its components
                let order = if rng.chance(50) {
                    String::new()
                } else {
                    let mut c = || pick(rng, &["x", "y", "z", "w"]);
                    format!(".{}{}{}{}", c(), c(), c(), c())
                };
                let _ = writeln!(
                    body,
                    "SAMPLE_L TEMP[{d}], TEMP[{s}], SVIEW[0]{order}, SAMP[0], {lod}"
                );
            }
            _ => {
                let _ = writeln!(body, "TEX TEMP[{d}], TEMP[{s}], SAMP[0], 2D");
            }
        }
        sampled = Some(d);
    }
    if rng.chance(20) {
        let (d, s) = (t(rng), rng.below(3));
        let op = pick(rng, &["DDX", "DDY"]);
        let _ = writeln!(body, "{op} TEMP[{d}], TEMP[{s}]");
    }
    let ops = pool();
    let ops: Vec<_> = ops
        .into_iter()
        .filter(|o| o.info().category != tgsi_ir::opcode::Category::InterLane)
        .collect();
    let len = 5 + rng.below(20) as usize;
    body.push_str(&Gen::alu_only(rng, &ops, 30).code(len));
    if rng.chance(15) {
        let _ = writeln!(body, "KILL_IF TEMP[{}]", t(rng));
    }
    // often a register the inputs filled (smooth values) or the sample,
    // else any
    let out = match sampled {
        // often the sample itself
        Some(d) if rng.chance(40) => d,
        _ if rng.chance(60) => rng.below(3),
        _ => t(rng),
    };
    let _ = writeln!(body, "MOV OUT[0], TEMP[{out}]");
    body.push_str("END\n");
    head + &body
}

/// The vertices of `n` random triangles (`IN[0..4]` of each): a clip
/// position (x, y in [-1.2w, 1.2w], z in [-0.1w, 1.1w]; with `tiny`,
/// x and y within about a pixel and a half of the triangle's centre) and
/// three attributes.
fn triangles(rng: &mut Rng, n: usize, tiny: bool) -> Vec<Vec<[u32; 4]>> {
    let mut centre = [0.0f32; 2];
    (0..3 * n)
        .map(|v| {
            let w = f32::from_bits(uniform(rng, 0.25, 4.0));
            let c = |rng: &mut Rng, lo: f32, hi: f32| f32::from_bits(uniform(rng, lo, hi)) * w;
            let mut pos = [c(rng, -1.2, 1.2), c(rng, -1.2, 1.2), c(rng, -0.1, 1.1), w];
            if tiny {
                if v % 3 == 0 {
                    centre = [pos[0] / w, pos[1] / w];
                }
                // (NDC units per pixel: 2 / WIDTH and 2 / HEIGHT)
                let near = |rng: &mut Rng, at: f32, size: u32| {
                    let d = f32::from_bits(uniform(rng, -3.0, 3.0)) / size as f32;
                    (at + d) * w
                };
                pos[0] = near(rng, centre[0], WIDTH);
                pos[1] = near(rng, centre[1], HEIGHT);
            }
            let mut regs = vec![pos.map(f32::to_bits)];
            for _ in 0..3 {
                // mostly ordinary floats (coordinates a texture can take), some special words
                regs.push(std::array::from_fn(|_| {
                    if rng.chance(85) {
                        uniform(rng, -2.0, 2.0)
                    } else {
                        rng.word()
                    }
                }));
            }
            regs
        })
        .collect()
}

fn render_state(rng: &mut Rng) -> RenderState {
    let mut state = RenderState {
        cull: pick(rng, &[CullMode::None, CullMode::Back, CullMode::Front]),
        front: pick(rng, &[FrontFace::Clockwise, FrontFace::CounterClockwise]),
        ..RenderState::default()
    };
    state.depth.enabled = rng.chance(70);
    state.depth.write = rng.chance(80);
    state.depth.func = pick(
        rng,
        &[
            CompareFunc::Less,
            CompareFunc::LessEqual,
            CompareFunc::Greater,
            CompareFunc::Always,
            CompareFunc::Equal,
        ],
    );
    let b = &mut state.blend[0];
    b.enabled = rng.chance(40);
    let factors = [
        BlendFactor::One,
        BlendFactor::Zero,
        BlendFactor::SrcAlpha,
        BlendFactor::InvSrcAlpha,
        BlendFactor::DstColor,
        BlendFactor::SrcColor,
    ];
    b.src = pick(rng, &factors);
    b.dst = pick(rng, &factors);
    b.src_alpha = pick(rng, &factors);
    b.dst_alpha = pick(rng, &factors);
    b.op = pick(rng, &[BlendOp::Add, BlendOp::Subtract, BlendOp::Max]);
    b.op_alpha = pick(rng, &[BlendOp::Add, BlendOp::RevSubtract, BlendOp::Min]);
    if rng.chance(20) {
        b.write_mask = rng.below(16) as u8;
    }
    // a clear on load, made by the bands as they come (colours past 1 and
    // below 0 too)
    if rng.chance(30) {
        let mut value = || rng.below(401) as f32 / 200.0 - 0.5;
        state.clear.colors[0] = Some([value(), value(), value(), value()]);
        state.clear.depth = Some(value().clamp(0.0, 1.0));
        state.clear.stencil = Some(rng.below(256) as u8);
    }
    state
}

/// A 16x16 (or 12x10: sides that are not powers of two) texture (RGBA8
/// UNORM or sRGB, RGBA32F, R8, RG16F, RGB10A2, RGBA16 SNORM, R32F) with a
/// full mip chain of random bytes (float formats: values of every class,
/// NaN among them), and a random sampler (filters, wraps, LOD bias and
/// range).
fn texture(rng: &mut Rng) -> (Texture, Sampler) {
    // the formats compiled code decodes itself, and some it samples from
    // a draw's decoded copy
    let format = pick(
        rng,
        &[
            Format::Rgba8Unorm,
            Format::Rgba8Srgb,
            Format::Rgba32Float,
            Format::R8Unorm,
            Format::Rg16Float,
            Format::Rgb10a2Unorm,
            Format::Rgba16Snorm,
            Format::R32Float,
        ],
    );
    let [w, h] = pick(rng, &[[16, 16], [16, 16], [12, 10]]);
    let levels = tgsi_exec::texture::resource::full_chain(w, h, 1);
    let mut tex = Texture::new(TextureTarget::Tex2D, format, [w, h, 1], 1, levels, 1)
        .unwrap_or_else(|e| panic!("a {w}x{h} texture: {e}"));
    for level in &mut tex.levels {
        for b in level.iter_mut() {
            *b = rng.next() as u8;
        }
    }
    let wrap = pick(
        rng,
        &[
            Wrap::Repeat,
            Wrap::ClampToEdge,
            Wrap::Clamp,
            Wrap::MirrorRepeat,
            Wrap::MirrorClampToEdge,
        ],
    );
    let sampler = Sampler {
        wrap: [wrap; 3],
        min: pick(rng, &[Filter::Linear, Filter::Nearest]),
        mag: pick(rng, &[Filter::Linear, Filter::Nearest]),
        mip: pick(
            rng,
            &[MipFilter::Linear, MipFilter::Nearest, MipFilter::None],
        ),
        // LODs raised, lowered and held (a minimum above 0 rules the
        // magnification test out)
        // (a NaN bias, and a maximum below the minimum, which wins)
        lod_bias: pick(rng, &[0.0, 0.0, 0.75, -1.5, f32::NAN]),
        min_lod: pick(rng, &[-1000.0, -1000.0, 1.25]),
        max_lod: pick(rng, &[1000.0, 1000.0, 2.5, 0.5]),
        ..Sampler::default()
    };
    (tex, sampler)
}

/// The texture's view: the whole texture, its components in order half
/// the time, else each result component any of them, 0 or 1.
fn view(rng: &mut Rng) -> View {
    use Swizzle::*;
    let mut view = View::full();
    if rng.below(2) == 1 {
        view.swizzle = std::array::from_fn(|_| pick(rng, &[R, G, B, A, Zero, One]));
    }
    view
}

/// Generates draw case `seed`.
pub fn generate(seed: u64) -> DrawCase {
    let mut rng = Rng(seed ^ 0xd4a3_0000_0000_0000);
    // the generator may pair a 64-bit opcode with a writemask the
    // validator refuses: draw again (a few times at most)
    let mut fragment = fragment_shader(&mut rng);
    for _ in 0..16 {
        let valid = tgsi_text::assemble(&fragment)
            .is_ok_and(|(s, _)| tgsi_exec::Program::compile(&s).is_ok());
        if valid {
            break;
        }
        fragment = fragment_shader(&mut rng);
    }
    let n = 1 + rng.below(24) as usize;
    let tiny = rng.chance(30);
    let vertices = triangles(&mut rng, n, tiny);
    let state = render_state(&mut rng);
    let format = pick(
        &mut rng,
        &[
            Format::Rgba8Unorm,
            Format::Rgba8Srgb,
            Format::Rgba32Float,
            Format::Rgba16Float,
        ],
    );
    let samples = if rng.chance(25) { 4 } else { 1 };
    let depth = rng
        .chance(75)
        .then(|| pick(&mut rng, &[DepthFormat::D32Float, DepthFormat::D24S8]));
    let (texture, sampler) = texture(&mut rng);
    let view = view(&mut rng);
    let consts = (0..20).map(|_| rng.word()).collect();
    DrawCase {
        fragment,
        vertex: VERTEX_SHADER.to_string(),
        vertices,
        state,
        format,
        samples,
        depth,
        texture,
        view,
        sampler,
        consts,
    }
}

/// What one draw left: the colour bytes and the depth and stencil cells,
/// or the error.
type Picture = Result<(Vec<u8>, Vec<u32>, Vec<u8>), String>;

/// How a case is drawn: the engine, the threads, whether batches pack
/// quads of several tiles and primitives.
#[derive(Clone, Copy, Debug)]
struct Way {
    engine: Engine,
    threads: usize,
    pack_quads: bool,
    /// Whether setup leaves out blank triangles a block at a time
    /// (`Limits::blank_test`).
    blank_test: bool,
}

impl std::fmt::Display for Way {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let engine = match self.engine {
            Engine::Interp => "interpreter",
            _ => "compiled engine",
        };
        let batches = if self.pack_quads {
            ""
        } else {
            ", a tile per batch"
        };
        let setup = if self.blank_test {
            ""
        } else {
            ", every triangle set up alone"
        };
        write!(f, "{engine} on {} thread(s){batches}{setup}", self.threads)
    }
}

fn draw(case: &DrawCase, way: Way) -> Result<Picture, String> {
    let Way {
        engine,
        threads,
        pack_quads,
        blank_test,
    } = way;
    let compile = |text: &str| -> Result<tgsi_exec::Program, String> {
        let (shader, _) = tgsi_text::assemble(text).map_err(|e| e.to_string())?;
        tgsi_jit::compile_engine(&shader, Numerics::Ieee, engine).map_err(|e| e.to_string())
    };
    let vs = compile(&case.vertex)?;
    let fs = compile(&case.fragment)?;
    if engine == Engine::Jit && Engine::of(&fs) != Engine::Jit {
        return Err(format!(
            "not compiled: {}",
            fs.fallback_reason().unwrap_or("?")
        ));
    }
    let target = if case.samples > 1 {
        TextureTarget::Msaa2D
    } else {
        TextureTarget::Tex2D
    };
    let mut color = Texture::new(target, case.format, [WIDTH, HEIGHT, 1], 1, 1, case.samples)?;
    let mut depth = match case.depth {
        Some(f) => Some(DepthTarget::new(f, WIDTH, HEIGHT, case.samples)?),
        None => None,
    };
    let mut res = Resources {
        constants: vec![case.consts.clone()],
        textures: vec![Some(case.texture.clone())],
        views: vec![case.view],
        samplers: vec![case.sampler],
        ..Resources::default()
    };
    let input = VertexInput::from_rows(&case.vertices);
    let call = DrawCall::vertices(
        Topology::Basic(BasicTopology::TriangleList),
        case.vertices.len() as u32,
    );
    let limits = Limits {
        threads,
        pack_quads,
        blank_test,
        max_instructions: 2_000_000,
        ..Limits::default()
    };
    let result = tgsi_pipeline::draw(
        &vs,
        &fs,
        &mut res,
        &input,
        &call,
        &case.state,
        std::slice::from_mut(&mut color),
        depth.as_mut(),
        &limits,
    );
    Ok(result.map_err(|e| e.message).map(|_| {
        let (z, s) = depth.map_or((Vec::new(), Vec::new()), |d| (d.depth, d.stencil));
        (color.levels.swap_remove(0), z, s)
    }))
}

/// Draws case `seed` with the interpreter on one thread, the compiled
/// engine on three, and the compiled engine on one with a tile per batch
/// and every triangle set up alone, and compares the targets (a draw
/// stopped at the instruction budget by one batching and not by another
/// is [`crate::fuzz::Verdict::BudgetBound`] when the other engine,
/// batching the same way, stops the same way).
pub fn check(seed: u64) -> crate::fuzz::Verdict {
    use crate::fuzz::Verdict;
    let case = generate(seed);
    let way = |engine, threads, pack_quads| Way {
        engine,
        threads,
        pack_quads,
        blank_test: pack_quads,
    };
    let first = way(Engine::Interp, 1, true);
    let compared = compared_engine();
    let want = match draw(&case, first) {
        Ok(p) => p,
        Err(why) => return Verdict::Invalid(why),
    };
    let mut budget_bound = None;
    for other in [way(compared, 3, true), way(compared, 1, false)] {
        let got = match draw(&case, other) {
            Ok(p) => p,
            Err(why) => return Verdict::NotCompiled(why),
        };
        // a stopped draw names its batch's pixels, which depend on how the
        // quads were batched (packed or not, and the bands' height, which
        // the thread count chooses): that both stopped is the agreement then
        let both_stopped = want.is_err() && got.is_err();
        if want == got || both_stopped {
            continue;
        }
        // whether a draw stops at all at the budget, which counts a batch's
        // instructions (both sides of a branch its lanes split on), depends
        // on the batching too: then the other engine, batching as the
        // stopped drawing did, must stop the same way. (Only a tile per
        // batch batches otherwise: the thread count does not, see
        // `tgsi_pipeline`'s cut of a draw whose batches may reach the budget.)
        let rebatched = other.pack_quads != first.pack_quads;
        let stopped = match (&want, &got) {
            (Err(w), Ok(_)) if rebatched && budget(w) => Some((first, &want)),
            (Ok(_), Err(g)) if rebatched && budget(g) => Some((other, &got)),
            _ => None,
        };
        if let Some((way, picture)) = stopped {
            let twin = Way {
                engine: match way.engine {
                    Engine::Interp => Engine::Jit,
                    _ => Engine::Interp,
                },
                ..way
            };
            if let Ok(again) = draw(&case, twin)
                && again == *picture
            {
                let why = picture.as_ref().err().cloned().unwrap_or_default();
                budget_bound = Some(format!("{way} and {twin}: {why}"));
                continue;
            }
        }
        return Verdict::Differ(difference(seed, &case, (first, &want), (other, &got)));
    }
    match budget_bound {
        Some(what) => Verdict::BudgetBound(what),
        None => Verdict::Same,
    }
}

/// The engine drawn against the interpreter on one thread: the compiled
/// engine, or where this CPU cannot run it the interpreter again, so that
/// the thread count and the batching are still compared.
pub fn compared_engine() -> Engine {
    if tgsi_jit::cpu_supported() {
        Engine::Jit
    } else {
        Engine::Interp
    }
}

/// Whether a drawing's error is the instruction budget's.
fn budget(error: &str) -> bool {
    error.contains("instruction budget")
}

/// Where two drawings of case `seed` differ, and the case.
fn difference(
    seed: u64,
    case: &DrawCase,
    (first, want): (Way, &Picture),
    (other, got): (Way, &Picture),
) -> String {
    let what = match (want, got) {
        (Ok((a, za, sa)), Ok((b, zb, sb))) => {
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                let bpt = case.format.bytes_per_texel() * case.samples as usize;
                let p = i / bpt;
                format!(
                    "colour byte {i} (pixel {}, {}): {} against {}",
                    p % WIDTH as usize,
                    p / WIDTH as usize,
                    a[i],
                    b[i]
                )
            } else if za != zb {
                "the depth cells differ".to_string()
            } else if sa != sb {
                "the stencil cells differ".to_string()
            } else {
                "the targets differ".to_string()
            }
        }
        (a, b) => format!(
            "{first}: {a:?}\n{other}: {b:?}",
            a = a.as_ref().err(),
            b = b.as_ref().err()
        ),
    };
    format!(
        "draw seed {seed:#x}: {first} and {other} differ: {what}\n\
         {} samples, {:?}, depth {:?}, {} triangles\n{}",
        case.samples,
        case.format,
        case.depth,
        case.vertices.len() / 3,
        case.fragment
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::Verdict;

    /// A few draws agree between the engines and thread counts, and most
    /// of them compile and draw.
    #[test]
    fn random_draws_agree_between_engines_and_thread_counts() {
        let (mut same, mut other) = (0, Vec::new());
        for seed in 0..40 {
            match check(seed) {
                Verdict::Same => same += 1,
                Verdict::Differ(d) => panic!("{d}"),
                Verdict::NotCompiled(why) => other.push(format!("{seed}: not compiled: {why}")),
                Verdict::Invalid(why) => other.push(format!("{seed}: invalid: {why}")),
                Verdict::BudgetBound(what) => other.push(format!("{seed}: budget: {what}")),
            }
        }
        assert!(
            same >= 30,
            "{same} of 40 drew on both: {}",
            other.join("\n")
        );
    }

    /// A case a 31-minute run found: its fragment shader's loop runs near
    /// the instruction budget, which counts a batch's instructions. It
    /// stopped on one thread and finished on three, each batching its
    /// quads otherwise; cut the same way whatever the threads, both engines
    /// draw the same on one thread and on three.
    #[test]
    fn a_draw_near_the_budget_is_the_same_on_any_thread_count() {
        let case = generate(0xca6fd7);
        let way = |engine, threads| Way {
            engine,
            threads,
            pack_quads: true,
            blank_test: true,
        };
        let want = draw(&case, way(Engine::Interp, 1)).expect("a valid case");
        let compiled = compared_engine();
        for (engine, threads) in [(compiled, 1), (compiled, 3), (Engine::Interp, 3)] {
            let got = draw(&case, way(engine, threads)).expect("a valid case");
            assert!(
                got == want,
                "{engine:?} on {threads} thread(s): {:?} against {:?}",
                got.as_ref().err(),
                want.as_ref().err()
            );
        }
        let verdict = check(0xca6fd7);
        assert!(!matches!(verdict, Verdict::Differ(_)), "{verdict:?}");
    }
}
