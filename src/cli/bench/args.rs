//! The arguments of `tgsi bench`: which workload, and how it is run.

use super::math::MathFunc;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Workload {
    /// fp64 + int64 loop over storage buffers (12_fp64_int64_ssbo)
    Compute,
    /// float sin/cos/mad loop (the loop of 01_loop_sin_tex)
    Alu,
    /// pure ALU: 8 independent MAD chains per iteration, against the host's
    /// FMA peak measured in the same run (lane-FMAs per second)
    Mad,
    /// full-target fragment shader: one bilinear texture sample + the sin/cos
    /// loop (01_loop_sin_tex, the work of `peerbench frag`)
    Frag,
    /// accuracy of the SIN/COS/EX2/LG2 kernels on all 2^32 inputs and of POW
    /// on 2^N sampled pairs (`--func`, `--threads`: the largest count given,
    /// `--pow-samples`)
    Ulp,
    /// ns per lane of each transcendental kernel over 16-lane rows (`--func`, `--reps`)
    Math,
    /// a Direct3D compute shader (fxc's tree reduction through shared
    /// memory, from the corpus) beside the same work written in TGSI
    D3d,
    /// the torus scene of examples/scene (vertex shader, depth test, lit
    /// textured fragment shader) at SIZE x 3*SIZE/4: the bundled 4096-triangle
    /// torus and a 65536-triangle one, 4x MSAA, tiny triangles, blended fill
    /// (RGBA8, RGBA16F) and the facets of examples/facets (all five stages);
    /// frames, triangles and shader lanes per second. With --peer, llvmpipe draws the same scene through
    /// meshbench in the peer folder (peers/mesa-gl/build.sh), or through the
    /// program TGSI_PEER_MESH names (one taking `--mesh FILE.obj --texture
    /// FILE.png --size WxH --frames N --out FILE.png --const N=float:...` and
    /// printing `median S s per frame`)
    Mesh,
    /// time to compile every corpus shader (tests/fixtures/mesa_exec,
    /// examples, benches/data; run from the repository) with each engine:
    /// per shader, then the median and the worst
    Compile,
    /// time to translate every shader of the bundled TGSI corpus to SPIR-V
    /// (run from the repository): the median and the worst
    Translate,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// Which work to run
    #[arg(value_enum)]
    pub workload: Workload,
    /// Invocations per dispatch (a multiple of the block size, 64)
    #[arg(long, default_value_t = 1 << 20)]
    pub invocations: u32,
    /// frag: the render target is SIZE x SIZE pixels (mesh: SIZE x 3*SIZE/4)
    #[arg(long, default_value_t = 1024)]
    pub size: u32,
    /// mesh: only the workloads whose name contains this text (`256x128`,
    /// `MSAA`, `tiny`, `fill`, `RGBA16F`...), or the one whose whole name
    /// it is (`torus 64x32`)
    #[arg(long)]
    pub scene: Option<String>,
    /// Timed dispatches (frag: frames) per thread count (after one warm-up)
    #[arg(long, default_value_t = 10)]
    pub reps: usize,
    /// Loop iterations per invocation (CONST[0][0].x)
    #[arg(long, default_value_t = 64)]
    pub iters: u32,
    /// Thread counts to measure, comma separated
    #[arg(long, default_value = "1,2", value_delimiter = ',', value_parser = crate::cli::thread_count)]
    pub threads: Vec<usize>,
    /// Also run Mesa's peers (softpipe, llvmpipe with 1 and 2 threads, bare
    /// tgsi_exec) on the same work and print the ratios (mesh: llvmpipe with
    /// 1 and 2 threads). The peers are programs in peers/build/ of the
    /// repository (or $TGSI_PEER_DIR), built by peers/mesa-tgsi/build.sh and
    /// peers/mesa-gl/build.sh; see peers/README.md
    #[arg(long)]
    pub peer: bool,
    /// compute, frag: also run the same work on the Vulkan device (the
    /// shader translated to SPIR-V; `--device` picks the device),
    /// timing the whole run of `Device::dispatch` / `Device::draw_quad`
    /// (translation, pipeline creation, upload, the run and the readback),
    /// and compare its results with the machine's
    #[arg(long)]
    pub vulkan: bool,
    /// ulp, math: which transcendental function
    #[arg(long, value_enum, default_value_t = MathFunc::All)]
    pub func: MathFunc,
    /// ulp: log2 of the number of (x, y) pairs POW is checked on
    #[arg(long, default_value_t = 28)]
    pub pow_samples: u32,
}
