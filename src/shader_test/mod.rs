//! The `.shader_test` runner (placeholder until it lands).
