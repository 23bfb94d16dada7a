//! Mesa's binary `tgsi_token` stream: IR ↔ little-endian 32-bit words (placeholder).
