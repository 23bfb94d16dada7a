//! Unit tests of the lowering.
