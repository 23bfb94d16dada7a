//! `tgsi`: Gallium's TGSI shader instruction set as real software.
//!
//! This crate is the facade of a workspace whose crates are the layers of
//! the data flow (`docs/architecture.md` draws them); it re-exports each
//! under the name an embedder uses:
//!
//! * [`opcode`], [`enums`], [`ir`], [`validate`], [`diag`], [`tess`],
//!   [`rng`] – the IR crate (`tgsi-ir`): the one opcode table, the
//!   intermediate representation, the validator, diagnostics;
//! * [`text`], [`tokens`], [`assemble`] – the TGSI front end (`tgsi-text`):
//!   assembler, canonical printer, Mesa's binary tokens;
//! * [`d3d`] – the Direct3D front end (`tgsi-d3d`): DXBC containers, SM4/SM5
//!   tokens, fxc listings, the assembler, the lowering to TGSI;
//! * [`exec`], [`texture`] – the machine (`tgsi-exec`): per-opcode
//!   semantics, the SoA interpreter of every stage, the texture engine;
//! * [`jit`] – the compiled engine (`tgsi-jit`), attached to programs
//!   through the machine's engine interface, and the engine choice
//!   ([`jit::compile`], [`jit::Engine`]);
//! * [`pipeline`] – the drawing pipeline between the shader stages;
//! * [`shader_test`] – the `.shader_test` runner behind `tgsi test`;
//! * [`translate`] – the SPIR-V back end (`tgsi-spirv`): TGSI and lowered
//!   Direct3D programs to SPIR-V modules for Vulkan ([`translate::to_spirv`]);
//! * [`vulkan`] – Vulkan as an engine (`tgsi-vulkan`): translated shaders
//!   run on a Vulkan device with the machine's resources;
//! * [`debug`] – the shader debugger's library side: one invocation
//!   followed through its program in TGSI or SM4/SM5 terms (`tgsi debug`);
//! * [`image_io`], [`mesh_io`] – PNG images and OBJ meshes in and out.
//!
//! # Use it as a library
//!
//! Assemble a compute shader, run it over one work group and read its
//! buffer back:
//!
//! ```
//! use tgsi::exec::{Limits, Numerics, Resources};
//!
//! let text = "COMP
//! PROPERTY CS_FIXED_BLOCK_WIDTH 4
//! PROPERTY CS_FIXED_BLOCK_HEIGHT 1
//! PROPERTY CS_FIXED_BLOCK_DEPTH 1
//! DCL SV[0], THREAD_ID
//! DCL BUFFER[0]
//! DCL TEMP[0..1]
//! IMM[0] UINT32 {4, 0, 0, 0}
//!   0: UMUL TEMP[0].x, SV[0].xxxx, IMM[0].xxxx
//!   1: LOAD TEMP[1].x, BUFFER[0], TEMP[0].xxxx
//!   2: UADD TEMP[1].x, TEMP[1].xxxx, TEMP[1].xxxx
//!   3: STORE BUFFER[0].x, TEMP[0].xxxx, TEMP[1].xxxx
//!   4: END
//! ";
//! let (shader, _source_map) = tgsi::assemble(text).map_err(|d| d.render("double.tgsi", text))?;
//! // the compiled engine where the CPU has AVX-512, else the interpreter
//! // (`Program::compile` alone pre-decodes for the interpreter)
//! let program = tgsi::jit::compile(&shader, Numerics::Ieee)?;
//! let mut res = Resources {
//!     buffers: vec![[1u32, 2, 3, 4].iter().flat_map(|w| w.to_le_bytes()).collect()],
//!     ..Resources::default()
//! };
//! program.dispatch(&mut res, [1, 1, 1], &Limits::default())?;
//! let words: Vec<u32> = res.buffers[0]
//!     .chunks_exact(4)
//!     .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
//!     .collect();
//! assert_eq!(words, [2, 4, 6, 8]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Turn Direct3D assembly into a DXBC container and into TGSI, and run it
//! under Direct3D's numeric rules (a float32 denormal input is flushed):
//!
//! ```
//! use tgsi::d3d::lower::{Signatures, lower};
//! use tgsi::exec::{Limits, Numerics, Program, Resources};
//!
//! let asm = "cs_5_0
//! dcl_uav_raw u0
//! dcl_temps 1
//! dcl_thread_group 1, 1, 1
//! ld_raw r0.x, l(0), u0.xxxx
//! mul r0.x, r0.x, l(1e30)
//! store_raw u0.x, l(0), r0.x
//! ret
//! ";
//! let assembly = tgsi::d3d::assemble::assemble_listing(asm).map_err(|d| d.render("add.asm", asm))?;
//! assert!(assembly.container.starts_with(b"DXBC"));
//! let lowered = lower(&assembly.program, &Signatures::from_declarations(&assembly.program))?;
//! println!("{}", lowered.to_text(&assembly.program)); // TGSI text with the D3D lines as comments
//! let program = Program::compile_with(&lowered.shader, Numerics::Direct3D)?;
//! // u0 is BUFFER[0] (docs/d3d-lowering.md: UAV buffers keep their numbers)
//! let mut res = Resources { buffers: vec![1u32.to_le_bytes().to_vec()], ..Resources::default() };
//! program.dispatch(&mut res, [1, 1, 1], &Limits::default())?;
//! // the denormal 1.4e-45 was flushed to 0 before the multiply (IEEE rules give 1.4e-15)
//! assert_eq!(res.buffers[0], 0.0f32.to_le_bytes());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Draw a triangle through the whole pipeline into an RGBA32F target:
//!
//! ```
//! use tgsi::enums::TextureTarget;
//! use tgsi::exec::{Limits, Program, Resources};
//! use tgsi::pipeline::{self, BasicTopology, DrawCall, RenderState, Topology, VertexInput};
//! use tgsi::texture::{Format, Texture};
//!
//! let vs = "VERT\nDCL IN[0]\nDCL OUT[0], POSITION\n  0: MOV OUT[0], IN[0]\n  1: END\n";
//! let fs = "FRAG\nDCL OUT[0], COLOR\nIMM[0] FLT32 {1.0, 0.5, 0.0, 1.0}\n  0: MOV OUT[0], IMM[0]\n  1: END\n";
//! let vs = Program::compile(&tgsi::assemble(vs).map_err(|d| d.render("vs", vs))?.0)?;
//! let fs = Program::compile(&tgsi::assemble(fs).map_err(|d| d.render("fs", fs))?.0)?;
//! // clip-space positions of a triangle covering the left half, clockwise on screen
//! let corner = |x: f32, y: f32| vec![[x, y, 0.0, 1.0].map(f32::to_bits)];
//! let input = VertexInput::from_rows(&[corner(-1.0, 1.0), corner(0.0, -1.0), corner(-1.0, -1.0)]);
//! let call = DrawCall {
//!     topology: Topology::Basic(BasicTopology::TriangleList),
//!     count: 3,
//!     instances: 1,
//!     indices: None,
//! };
//! let mut target = Texture::new(TextureTarget::Tex2D, Format::Rgba32Float, [8, 8, 1], 1, 1, 1)?;
//! let (mut res, state) = (Resources::default(), RenderState::default());
//! pipeline::draw(&vs, &fs, &mut res, &input, &call, &state, std::slice::from_mut(&mut target), None, &Limits::default())?;
//! let texel = |x: usize, y: usize| target.format.decode(&target.levels[0][(y * 8 + x) * 16..][..16]);
//! assert_eq!(texel(0, 7), [1.0f32, 0.5, 0.0, 1.0].map(f32::to_bits)); // inside
//! assert_eq!(texel(7, 0), [0; 4]); // outside: the cleared target
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use tgsi_d3d as d3d;
pub use tgsi_exec as exec;
pub use tgsi_exec::texture;
pub use tgsi_ir::{diag, enums, format_names, ir, opcode, rng, tess, validate};
pub use tgsi_jit as jit;
pub use tgsi_pipeline as pipeline;
pub use tgsi_shader_test as shader_test;
pub use tgsi_spirv as translate;
pub use tgsi_text as text;
pub use tgsi_text::{assemble, tokens};
pub use tgsi_vulkan as vulkan;

pub mod debug;
pub mod image_io;
pub mod mesh_io;
pub mod sniff;

pub use diag::{Diagnostic, Diagnostics};
pub use ir::Shader;
