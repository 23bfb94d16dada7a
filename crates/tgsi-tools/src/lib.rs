//! The project's tools beside the product: the differential fuzzer of the
//! compiled engine against the interpreter (`tgsi fuzz`).

pub mod fuzz;
