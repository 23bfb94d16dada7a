//! The project's tools beside the product: the differential fuzzers of the
//! compiled engine against the interpreter (`tgsi fuzz`: compute shaders;
//! `tgsi fuzz --draws`: draws, also against another thread count).

pub mod draw_fuzz;
pub mod fuzz;
pub mod vulkan_fuzz;
