//! vkd3d's qualifiers on shader headers and test lines, so that files
//! written for vkd3d's `shader_runner` read here unchanged:
//!
//! * `fail(COND)` on a shader header: the shader must be rejected when COND
//!   holds (a bare `fail` always);
//! * `if(COND) COMMAND`: the command runs only when COND holds;
//! * `todo`, `todo(COND)`, `bug(COND)`, `notimpl(COND)`: marks of gaps in
//!   vkd3d's own implementations; they change nothing here.
//!
//! A condition is terms joined by `|` (or) and `&` (and): `sm<6`, `sm>=5.1`,
//! ... compare the runner's shader model ([`SHADER_MODEL`], 5.1);
//! `d3d11` holds (the runner follows Direct3D 11's rules); every other
//! name (a backend or compiler: `d3d12`, `vulkan`, `opengl`, `glsl`, `msl`,
//! `mvk`, `llvmpipe`, ...) does not.

use super::error::ParseError;

/// The runner's shader model as major * 10 + minor.
/// The shader model the runner claims for `shader model` requirements.
pub const SHADER_MODEL: u32 = 51;
const MODEL: u32 = SHADER_MODEL;

/// Evaluates a condition; `None` when it does not parse.
pub fn condition(text: &str) -> Option<bool> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut any = false;
    for alternative in text.split('|') {
        let mut all = true;
        for term in alternative.split('&') {
            all &= term_holds(term.trim())?;
        }
        any |= all;
    }
    Some(any)
}

fn term_holds(term: &str) -> Option<bool> {
    if let Some(rest) = term.strip_prefix('!') {
        return term_holds(rest.trim()).map(|b| !b);
    }
    if let Some(rest) = term.strip_prefix("sm") {
        let rest = rest.trim_start();
        let (op, value) = ["<=", ">=", "==", "!=", "<", ">"]
            .iter()
            .find_map(|op| rest.strip_prefix(op).map(|v| (*op, v.trim())))?;
        let model = parse_model(value)?;
        return Some(match op {
            "<=" => MODEL <= model,
            ">=" => MODEL >= model,
            "==" => MODEL == model,
            "!=" => MODEL != model,
            "<" => MODEL < model,
            _ => MODEL > model,
        });
    }
    if term.is_empty() || !term.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some(term == "d3d11")
}

/// `6`, `5.1` → 60, 51.
fn parse_model(s: &str) -> Option<u32> {
    let (major, minor) = s.split_once('.').unwrap_or((s, "0"));
    let major: u32 = major.parse().ok()?;
    let minor: u32 = minor.parse().ok()?;
    (minor < 10).then_some(major * 10 + minor)
}

/// A `NAME(COND)` or bare `NAME` qualifier at the start of `text`: its name,
/// its condition (`None` when bare) and the text after it.
fn split_qualifier(text: &str) -> Option<(&str, Option<&str>, &str)> {
    let text = text.trim_start();
    let name_len = text
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    let name = &text[..name_len];
    if !matches!(name, "if" | "todo" | "bug" | "notimpl" | "fail") {
        return None;
    }
    let rest = &text[name_len..];
    if let Some(inner) = rest.strip_prefix('(') {
        let close = inner.find(')')?;
        Some((name, Some(&inner[..close]), &inner[close + 1..]))
    } else if rest.is_empty() || rest.starts_with(char::is_whitespace) {
        Some((name, None, rest))
    } else {
        None
    }
}

/// Strips the qualifiers of a `[test]` line: `Ok(None)` when an `if(COND)`
/// excludes the command, `Ok(Some(command))` otherwise.
pub fn test_line(line: usize, text: &str) -> Result<Option<&str>, ParseError> {
    let mut rest = text.trim();
    let mut run = true;
    while let Some((name, cond, after)) = split_qualifier(rest) {
        if name == "fail" {
            break;
        }
        if let Some(c) = cond {
            let holds = condition(c).ok_or_else(|| {
                ParseError::new(
                    line,
                    format!("cannot read the condition `{c}` of `{name}(...)`"),
                )
            })?;
            if name == "if" {
                run &= holds;
            }
        } else if name == "if" {
            return Err(ParseError::new(
                line,
                "`if` needs a condition: `if(COND) COMMAND`",
            ));
        }
        rest = after.trim_start();
    }
    Ok(run.then_some(rest))
}

/// The words of a shader header after `shader`, with vkd3d's qualifiers
/// read: the other words, and whether the shader must fail (`fail`, or
/// `fail(COND)` whose condition holds).
pub fn shader_modifiers<'a>(
    line: usize,
    words: &[&'a str],
) -> Result<(Vec<&'a str>, bool), ParseError> {
    // Rejoin conditions that contain blanks: `fail(sm<6 | glsl)`.
    let mut joined: Vec<String> = Vec::new();
    let mut open = false;
    for w in words {
        if open {
            let last = joined.last_mut().expect("an open qualifier");
            last.push(' ');
            last.push_str(w);
        } else {
            joined.push(w.to_string());
        }
        let depth = joined.last().map_or(0, |s| {
            s.matches('(').count() as i32 - s.matches(')').count() as i32
        });
        open = depth > 0;
    }
    if open {
        return Err(ParseError::new(line, "a qualifier's `(` is never closed"));
    }
    let mut kept = Vec::new();
    let mut fail = false;
    let mut at = 0usize;
    for w in &joined {
        // the word count of this joined entry in `words`
        let n = w.split_whitespace().count();
        let original = &words[at..at + n];
        at += n;
        match split_qualifier(w) {
            Some((name, cond, rest)) if rest.trim().is_empty() => {
                let holds = match cond {
                    Some(c) => condition(c).ok_or_else(|| {
                        ParseError::new(
                            line,
                            format!("cannot read the condition `{c}` of `{name}(...)`"),
                        )
                    })?,
                    None => true,
                };
                match name {
                    "fail" => fail |= holds,
                    "if" => {
                        return Err(ParseError::new(
                            line,
                            "`if(...)` qualifies test lines, not shader headers",
                        ));
                    }
                    _ => {}
                }
            }
            _ => kept.extend_from_slice(original),
        }
    }
    Ok((kept, fail))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conditions_compare_the_model_and_name_backends() {
        assert_eq!(condition("sm<6"), Some(true));
        assert_eq!(condition("sm>=6"), Some(false));
        assert_eq!(condition("sm>=5.1"), Some(true));
        assert_eq!(condition("sm<5.1"), Some(false));
        assert_eq!(condition("sm>=6 | glsl"), Some(false));
        assert_eq!(condition("sm<6 & !msl"), Some(true));
        assert_eq!(condition("d3d11"), Some(true));
        assert_eq!(condition("vulkan | d3d12"), Some(false));
        assert_eq!(condition("sm<"), None);
        assert_eq!(condition(""), None);
    }

    #[test]
    fn test_lines_lose_their_qualifiers() {
        assert_eq!(
            test_line(1, "todo(sm<6) draw quad").unwrap(),
            Some("draw quad")
        );
        assert_eq!(test_line(1, "todo draw quad").unwrap(), Some("draw quad"));
        assert_eq!(
            test_line(1, "bug(mvk) todo(glsl) probe (0, 0) rgba (1, 2, 3, 4)").unwrap(),
            Some("probe (0, 0) rgba (1, 2, 3, 4)")
        );
        assert_eq!(test_line(1, "if(sm>=6) draw quad").unwrap(), None);
        assert_eq!(
            test_line(1, "if(sm<6) draw quad").unwrap(),
            Some("draw quad")
        );
        assert_eq!(test_line(1, "todo_thing 3").unwrap(), Some("todo_thing 3"));
        assert!(test_line(7, "if(sm<<6) draw quad").is_err());
        assert!(test_line(7, "if draw quad").is_err());
    }

    #[test]
    fn shader_headers_read_fail_conditions() {
        let (kept, fail) = shader_modifiers(1, &["d3d-asm", "fail(sm<6)"]).unwrap();
        assert_eq!((kept, fail), (vec!["d3d-asm"], true));
        let (kept, fail) =
            shader_modifiers(1, &["todo(sm<6)", "fail(sm>=6", "|", "glsl)"]).unwrap();
        assert_eq!((kept, fail), (vec![], false));
        let (kept, fail) = shader_modifiers(1, &["fail"]).unwrap();
        assert_eq!((kept, fail), (vec![], true));
        assert!(shader_modifiers(1, &["fail(sm<6"]).is_err());
        assert!(shader_modifiers(1, &["if(sm<6)"]).is_err());
    }
}
