//! Tests of the texture engine.
