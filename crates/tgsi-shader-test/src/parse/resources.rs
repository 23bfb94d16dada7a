//! Resource sections: `[buffer N]`, `[texture N]` and `[image N]` (target,
//! format, size, levels and texel data), `[sampler N]`.

use super::words::{
    no_more, parse_f32, parse_format, parse_index, parse_typed_line, parse_u32, take_parens,
};
use super::{
    AddressMode, CompareFunc, Filter, LevelData, Line, ParseError, SamplerSection, Section,
    TextureFormat, TextureSection, TextureTarget, check_buffer_size, check_size,
    is_comment_or_blank,
};
use crate::values::{ValueType, push_words, split_values};
use tgsi_exec::texture::format::NumClass;

/// The value type of bare numbers in texel data of `format`.
fn default_type(format: TextureFormat) -> ValueType {
    match format.num_class() {
        NumClass::Uint => ValueType::Uint,
        NumClass::Sint => ValueType::Int,
        _ => ValueType::Float,
    }
}

pub(super) fn parse_buffer(line: usize, n: &str, body: &[Line<'_>]) -> Result<Section, ParseError> {
    let index = parse_index(line, Some(n), "a buffer index")?;
    let mut size = None;
    let mut words = Vec::new();
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let mut it = l.text.split_whitespace();
        if it.clone().next() == Some("size") {
            it.next();
            if size.is_some() || !words.is_empty() {
                return Err(ParseError::new(
                    l.number,
                    "`size` must be the first line of a [buffer] section",
                ));
            }
            let bytes = parse_u32(l.number, it.next(), "a size in bytes")? as u64;
            no_more(l.number, it)?;
            check_buffer_size(l.number, bytes)?;
            size = Some(bytes);
            continue;
        }
        words.extend(parse_typed_line(l.number, l.text)?);
        let bytes = words.len() as u64 * 4;
        check_size(l.number, bytes)?;
        if let Some(s) = size.filter(|s| bytes > *s) {
            return Err(ParseError::new(
                l.number,
                format!("the contents ({bytes} bytes) exceed the buffer size ({s} bytes)"),
            ));
        }
    }
    Ok(Section::Buffer { index, size, words })
}

pub(super) fn parse_texture(
    line: usize,
    n: &str,
    image: bool,
    body: &[Line<'_>],
) -> Result<TextureSection, ParseError> {
    let what = if image {
        "an image index"
    } else {
        "a texture index"
    };
    let index = parse_index(line, Some(n), what)?;
    let mut lines = TextureLines::default();
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        lines.line(l)?;
    }
    lines.finish(line, index, image)
}

/// What the lines of a `[texture N]` or `[image N]` section have given so
/// far.
#[derive(Default)]
struct TextureLines {
    target: Option<TextureTarget>,
    format: Option<TextureFormat>,
    size: Option<[u32; 3]>,
    levels: Option<u32>,
    data: Vec<LevelData>,
    /// The level the next texel data lines fill.
    level: u32,
    /// A `level` or texel data line has been read (settings come before).
    data_started: bool,
    /// Per level, each data line and the level's value count after it
    /// (for an error at the line that overflows the level).
    data_lines: Vec<Vec<(usize, usize)>>,
}

impl TextureLines {
    /// One content line: a setting (`target`, `format`, `size`, `levels`),
    /// `level K`, or texel data.
    fn line(&mut self, l: &Line<'_>) -> Result<(), ParseError> {
        let mut it = l.text.split_whitespace();
        let first = it.clone().next().unwrap_or_default();
        let setting = matches!(first, "target" | "format" | "size" | "levels");
        if setting && self.data_started {
            return Err(ParseError::new(
                l.number,
                format!("`{first}` must come before the texel data"),
            ));
        }
        match first {
            "target" => {
                it.next();
                let w = it.next().unwrap_or_default();
                self.target = Some(TextureTarget::from_word(w).ok_or_else(|| {
                    ParseError::new(l.number, format!("unknown target `{w}` (expected 1d, 2d, 3d, cube, 1d_array, 2d_array, cube_array, rect or buffer)"))
                })?);
                no_more(l.number, it)?;
            }
            "format" => {
                it.next();
                let w = it.next().unwrap_or_default();
                self.format = Some(parse_format(l.number, w)?);
                no_more(l.number, it)?;
            }
            "size" => self.size = Some(parse_texture_size(l.number, l.text)?),
            "levels" => {
                it.next();
                let v = parse_u32(l.number, it.next(), "a number of levels")?;
                no_more(l.number, it)?;
                if v == 0 || v > 16 {
                    return Err(ParseError::new(l.number, "`levels` must be 1 to 16"));
                }
                self.levels = Some(v);
            }
            "level" => {
                it.next();
                let k = parse_u32(l.number, it.next(), "a level number")?;
                no_more(l.number, it)?;
                // checked here: the data of levels up to k is made as it comes
                let levels = self.levels.unwrap_or(16);
                if k >= levels {
                    return Err(ParseError::new(
                        l.number,
                        format!("level {k}: the resource has {levels} level(s), numbered from 0"),
                    ));
                }
                if k < self.level || (k == self.level && self.data_started) {
                    return Err(ParseError::new(
                        l.number,
                        "levels must be given in increasing order",
                    ));
                }
                self.level = k;
                self.data_started = true;
            }
            _ => self.texel_data(l)?,
        }
        Ok(())
    }

    /// A line of texel data for the current level: `[TYPE] v v ...`, bare
    /// values typed by the format.
    fn texel_data(&mut self, l: &Line<'_>) -> Result<(), ParseError> {
        self.data_started = true;
        let fmt = self
            .format
            .ok_or_else(|| ParseError::new(l.number, "texel data before `format`"))?;
        let t = l.text.trim();
        let (ty, rest) = match t
            .split_once(char::is_whitespace)
            .map(|(a, b)| (ValueType::from_word(a), b))
        {
            Some((Some((ty, _)), rest)) => (ty, rest),
            _ if ValueType::from_word(t).is_some() => (
                ValueType::from_word(t)
                    .unwrap_or((ValueType::Float, false))
                    .0,
                "",
            ),
            _ => (default_type(fmt), t),
        };
        if ty.is_64bit() {
            return Err(ParseError::new(
                l.number,
                "texel data take 32-bit values (float, uint, int or hex)",
            ));
        }
        while self.data.len() <= self.level as usize {
            self.data.push(LevelData {
                value_type: ty,
                words: Vec::new(),
            });
        }
        let entry = &mut self.data[self.level as usize];
        if entry.value_type != ty && !entry.words.is_empty() {
            return Err(ParseError::new(
                l.number,
                "texel data of one level must use one value type",
            ));
        }
        entry.value_type = ty;
        let words: Vec<&str> = split_values(rest).collect();
        push_words(ty, &words, &mut entry.words).map_err(|e| ParseError::new(l.number, e))?;
        let count = entry.words.len();
        let level = self.level as usize;
        if self.data_lines.len() <= level {
            self.data_lines.resize(level + 1, Vec::new());
        }
        self.data_lines[level].push((l.number, count));
        Ok(())
    }

    /// The section once every line is read: the settings it must have, then
    /// its size, levels and data checked against each other.
    fn finish(self, line: usize, index: u32, image: bool) -> Result<TextureSection, ParseError> {
        let target = self
            .target
            .ok_or_else(|| ParseError::new(line, "missing `target` line"))?;
        let format = self
            .format
            .ok_or_else(|| ParseError::new(line, "missing `format` line"))?;
        let size = self
            .size
            .ok_or_else(|| ParseError::new(line, "missing `size` line"))?;
        check_texture_shape(line, target, size)?;
        let levels = self.levels.unwrap_or(1);
        check_texture_levels(line, target, size, levels)?;
        let shape = Shape {
            target,
            format,
            size,
            levels,
        };
        check_texel_data(line, shape, &self.data, &self.data_lines)?;
        Ok(TextureSection {
            index,
            image,
            target,
            format,
            size,
            levels,
            data: self.data,
        })
    }
}

/// `size (W[, H[, D]])` of a texture or image: unused dimensions are 1.
fn parse_texture_size(line: usize, text: &str) -> Result<[u32; 3], ParseError> {
    let rest = text.trim_start().strip_prefix("size").unwrap_or_default();
    let (inner, tail) = take_parens(line, rest, "the size")?;
    no_more(line, tail.split_whitespace())?;
    let dims: Vec<&str> = split_values(&inner).collect();
    if dims.is_empty() || dims.len() > 3 {
        return Err(ParseError::new(line, "`size` takes 1 to 3 numbers"));
    }
    let mut s = [1u32; 3];
    for (k, d) in dims.iter().enumerate() {
        s[k] = parse_u32(line, Some(d), "a dimension")?;
        if s[k] == 0 {
            return Err(ParseError::new(line, "a dimension must be at least 1"));
        }
    }
    Ok(s)
}

/// The size fits the target: no dimensions beyond the target's, square cube
/// faces, whole cubes in a cube array.
fn check_texture_shape(
    line: usize,
    target: TextureTarget,
    size: [u32; 3],
) -> Result<(), ParseError> {
    for (k, extra) in size.iter().enumerate().skip(target.dims()) {
        if *extra != 1 {
            return Err(ParseError::new(
                line,
                format!(
                    "this target has {} dimension(s); size component {} must be 1",
                    target.dims(),
                    k + 1
                ),
            ));
        }
    }
    if matches!(target, TextureTarget::Cube | TextureTarget::CubeArray) && size[0] != size[1] {
        return Err(ParseError::new(line, "cube faces must be square"));
    }
    if target == TextureTarget::CubeArray && !size[2].is_multiple_of(6) {
        return Err(ParseError::new(
            line,
            "a cube array's layer count must be a multiple of 6",
        ));
    }
    Ok(())
}

/// No more mip levels than the largest dimension allows.
fn check_texture_levels(
    line: usize,
    target: TextureTarget,
    size: [u32; 3],
    levels: u32,
) -> Result<(), ParseError> {
    let largest = match target {
        TextureTarget::D1 | TextureTarget::D1Array | TextureTarget::Buffer => size[0],
        TextureTarget::D3 => size[0].max(size[1]).max(size[2]),
        _ => size[0].max(size[1]),
    };
    if levels > 32 - largest.leading_zeros() {
        return Err(ParseError::new(
            line,
            format!("{levels} levels is more than a {largest}-texel resource has"),
        ));
    }
    Ok(())
}

/// A resource's target, format, size and level count.
#[derive(Clone, Copy)]
struct Shape {
    target: TextureTarget,
    format: TextureFormat,
    size: [u32; 3],
    levels: u32,
}

/// Texel data only for levels the resource has, each within the runner's
/// size limit and no longer than its level (an error at the data line
/// that goes past it, from `lines`: per level, each line and the count
/// after it; `line` otherwise).
fn check_texel_data(
    line: usize,
    shape: Shape,
    data: &[LevelData],
    lines: &[Vec<(usize, usize)>],
) -> Result<(), ParseError> {
    let Shape {
        target,
        format,
        size,
        levels,
    } = shape;
    if data.len() > levels as usize {
        return Err(ParseError::new(
            line,
            format!(
                "texel data given for level {} but the resource has {levels} level(s)",
                data.len() - 1
            ),
        ));
    }
    for (k, d) in data.iter().enumerate() {
        let texels = target.texels(size, k as u32);
        let components = format.channels() as u64;
        let allowed = texels.saturating_mul(components);
        check_size(line, allowed.saturating_mul(4))?;
        if d.words.len() as u64 > allowed {
            let past = (lines.get(k).into_iter().flatten())
                .find(|(_, count)| *count as u64 > allowed)
                .map_or(line, |(at, _)| *at);
            return Err(ParseError::new(
                past,
                format!(
                    "level {k} holds {allowed} components but {} values were given",
                    d.words.len()
                ),
            ));
        }
    }
    Ok(())
}

fn parse_filter(line: usize, w: Option<&str>, mip: bool) -> Result<Filter, ParseError> {
    match w {
        Some("nearest") => Ok(Filter::Nearest),
        Some("linear") => Ok(Filter::Linear),
        Some("none") if mip => Ok(Filter::None),
        other => Err(ParseError::new(
            line,
            format!(
                "expected {}, found `{}`",
                if mip {
                    "nearest, linear or none"
                } else {
                    "nearest or linear"
                },
                other.unwrap_or("end of line")
            ),
        )),
    }
}

pub(super) fn parse_sampler(
    line: usize,
    n: &str,
    body: &[Line<'_>],
) -> Result<SamplerSection, ParseError> {
    let mut s = SamplerSection::new(parse_index(line, Some(n), "a sampler index")?);
    for l in body.iter().filter(|l| !is_comment_or_blank(l.text)) {
        let ln = l.number;
        let mut it = l.text.split_whitespace();
        let key = it.next().unwrap_or_default();
        match key {
            "filter" => {
                s.min_filter = parse_filter(ln, it.next(), false)?;
                s.mag_filter = parse_filter(ln, it.next(), false)?;
                s.mip_filter = parse_filter(ln, it.next(), true)?;
                no_more(ln, it)?;
            }
            "address" => {
                let modes: Vec<&str> = it.collect();
                if modes.is_empty() || modes.len() > 3 {
                    return Err(ParseError::new(ln, "`address` takes 1 to 3 modes (U V W)"));
                }
                for (k, m) in modes.iter().enumerate() {
                    s.address[k] = AddressMode::from_word(m).ok_or_else(|| {
                        ParseError::new(
                            ln,
                            format!(
                                "unknown address mode `{m}` (expected wrap, clamp, border, mirror or mirror_once)"
                            ),
                        )
                    })?;
                }
            }
            "border" => {
                let rest = l
                    .text
                    .trim_start()
                    .strip_prefix("border")
                    .unwrap_or_default();
                let (inner, tail) = take_parens(ln, rest, "the border colour")?;
                no_more(ln, tail.split_whitespace())?;
                let vals: Vec<&str> = split_values(&inner).collect();
                if vals.len() != 4 {
                    return Err(ParseError::new(
                        ln,
                        format!("`border` takes 4 values, found {}", vals.len()),
                    ));
                }
                for (k, v) in vals.iter().enumerate() {
                    s.border[k] = parse_f32(ln, Some(v), "a float")?;
                }
            }
            "compare" => {
                let w = it.next().unwrap_or_default();
                s.compare = Some(CompareFunc::from_word(w).ok_or_else(|| {
                    ParseError::new(ln, format!("unknown compare function `{w}`"))
                })?);
                no_more(ln, it)?;
            }
            "lod_bias" | "min_lod" | "max_lod" => {
                let v = parse_f32(ln, it.next(), "a float")?;
                no_more(ln, it)?;
                match key {
                    "lod_bias" => s.lod_bias = v,
                    "min_lod" => s.min_lod = v,
                    _ => s.max_lod = v,
                }
            }
            "normalized_coords" => {
                s.normalized_coords = match it.next() {
                    Some("true") => true,
                    Some("false") => false,
                    other => {
                        return Err(ParseError::new(
                            ln,
                            format!(
                                "expected true or false, found `{}`",
                                other.unwrap_or("end of line")
                            ),
                        ));
                    }
                };
                no_more(ln, it)?;
            }
            other => {
                return Err(ParseError::new(
                    ln,
                    format!("unknown sampler setting `{other}`"),
                ));
            }
        }
    }
    Ok(s)
}
