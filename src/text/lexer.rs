//! Tokens of TGSI text (placeholder until the lexer lands).
