//! `[require]` lines: the capabilities a file's tests need.

use super::{Compare, Requirement};

pub(super) fn parse_requirement(text: &str) -> Requirement {
    let words: Vec<String> = text
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["doubles"] | ["double"] | ["float64"] => Requirement::Doubles,
        ["int64"] => Requirement::Int64,
        ["shader", "model", op, version] => {
            let cmp = match *op {
                "<" => Compare::Less,
                "<=" => Compare::LessEqual,
                "==" | "=" => Compare::Equal,
                ">=" => Compare::GreaterEqual,
                ">" => Compare::Greater,
                _ => return Requirement::Unknown(text.trim().to_string()),
            };
            match parse_model(version) {
                Some(model) => Requirement::ShaderModel(cmp, model),
                None => Requirement::Unknown(text.trim().to_string()),
            }
        }
        _ => Requirement::Unknown(text.trim().to_string()),
    }
}

/// `5.1` → 51.
fn parse_model(v: &str) -> Option<u32> {
    let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
    let major: u32 = major.parse().ok()?;
    let minor: u32 = minor.parse().ok()?;
    (minor < 10 && major < 100).then_some(major * 10 + minor)
}
