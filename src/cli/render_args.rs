//! The small languages of `tgsi render`'s options: `--size WxH`,
//! `--texture N=FILE.png[:srgb][:mips]` and `--sampler N=ITEM,ITEM,...`.
//! Sampler items fill a [`SamplerSection`], the same state a `[sampler N]`
//! section of a `.shader_test` file describes, so both paths share one
//! conversion to the machine's sampler.

use anyhow::{Result, anyhow, bail};
use std::path::PathBuf;
use tgsi::shader_test::{AddressMode, CompareFunc, Filter, SamplerSection};

/// Help text of `--sampler`, shown by `tgsi render --help`.
pub const SAMPLER_HELP: &str = "Sampler state of SAMP[N]: `N=ITEM,ITEM,...`, items applied in order \
over the defaults (nearest/nearest/none, clamp on every axis, border 0, lod 0..1000, normalized). \
Items: `nearest` or `linear` (minification and magnification filter), `min=F`, `mag=F` \
(F nearest|linear), `mip=none|nearest|linear`, `trilinear` (= linear,mip=linear); an address mode \
for every axis: `repeat` (alias `wrap`), `clamp` (to edge), `border`, `mirror` (mirrored repeat), \
`mirror_once` (mirror once, then clamp to edge); one axis: `u=MODE`, `v=MODE`, `w=MODE`; \
`border=R:G:B:A` (floats), `lod_bias=X`, `min_lod=X`, `max_lod=X`, \
`compare=never|less|equal|less_equal|greater|not_equal|greater_equal|always`, `unnormalized`. \
Example: `--sampler 0=linear,repeat,v=clamp,lod_bias=-0.5`. Repeatable.";

/// `WxH` (each side 1..=16384, at most 2^26 pixels).
pub fn parse_size(text: &str) -> Result<(u32, u32)> {
    let (w, h) = text
        .split_once(['x', 'X'])
        .ok_or_else(|| anyhow!("--size `{text}`: expected WIDTHxHEIGHT, e.g. 512x512"))?;
    let side = |s: &str, what: &str| -> Result<u32> {
        let digits = s.trim();
        let whole = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if !whole {
            bail!("--size `{text}`: the {what} `{s}` is not a whole number");
        }
        // a run of digits too long for u64 is too many pixels as well
        let v = digits.parse::<u64>().unwrap_or(u64::MAX);
        if v == 0 || v > 16384 {
            bail!("--size `{text}`: the {what} must be 1 to 16384 pixels");
        }
        Ok(v as u32)
    };
    let (w, h) = (side(w, "width")?, side(h, "height")?);
    if u64::from(w) * u64::from(h) > 1 << 26 {
        bail!("--size `{text}`: at most 67108864 pixels");
    }
    Ok((w, h))
}

/// Largest resource index an option may name.
const MAX_INDEX: usize = 4096;

fn parse_index(text: &str, spec: &str, option: &str) -> Result<usize> {
    let i: usize = text.trim().parse().map_err(|_| {
        anyhow!("{option} `{spec}`: `{text}` is not a resource index (expected N=...)")
    })?;
    if i >= MAX_INDEX {
        bail!(
            "{option} `{spec}`: index {i} is too large (at most {})",
            MAX_INDEX - 1
        );
    }
    Ok(i)
}

/// One `--texture` option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextureSpec {
    pub index: usize,
    pub path: PathBuf,
    /// The texels are sRGB-encoded (format rgba8_srgb instead of rgba8).
    pub srgb: bool,
    /// Build the whole mip chain (2×2 box filter) after loading level 0.
    pub mips: bool,
}

/// `N=FILE.png[:srgb][:mips]`.
pub fn parse_texture(spec: &str) -> Result<TextureSpec> {
    let (index, rest) = spec
        .split_once('=')
        .ok_or_else(|| anyhow!("--texture `{spec}`: expected N=FILE.png[:srgb][:mips]"))?;
    let index = parse_index(index, spec, "--texture")?;
    let mut path = rest;
    let mut srgb = false;
    let mut mips = false;
    // Flags are peeled off the end, so a path may itself contain `:`.
    loop {
        if let Some(p) = path.strip_suffix(":srgb") {
            srgb = true;
            path = p;
        } else if let Some(p) = path.strip_suffix(":mips") {
            mips = true;
            path = p;
        } else {
            break;
        }
    }
    if path.is_empty() {
        bail!("--texture `{spec}`: no file name after `=`");
    }
    Ok(TextureSpec {
        index,
        path: PathBuf::from(path),
        srgb,
        mips,
    })
}

fn filter_word(w: &str, item: &str, spec: &str) -> Result<Filter> {
    match w {
        "nearest" => Ok(Filter::Nearest),
        "linear" => Ok(Filter::Linear),
        _ => bail!("--sampler `{spec}`: `{item}`: expected nearest or linear, found `{w}`"),
    }
}

/// A shader_test address mode, or `repeat` (an alias of `wrap`).
fn address_word(w: &str) -> Option<AddressMode> {
    match w {
        "repeat" => Some(AddressMode::Wrap),
        _ => AddressMode::from_word(w),
    }
}

fn float_of(w: &str, item: &str, spec: &str) -> Result<f32> {
    let v: f32 = w
        .parse()
        .map_err(|_| anyhow!("--sampler `{spec}`: `{item}`: `{w}` is not a number"))?;
    if v.is_nan() {
        bail!("--sampler `{spec}`: `{item}`: NaN is not allowed");
    }
    Ok(v)
}

/// `N=ITEM,ITEM,...` (see [`SAMPLER_HELP`]).
pub fn parse_sampler(spec: &str) -> Result<SamplerSection> {
    let (index, rest) = spec.split_once('=').ok_or_else(|| {
        anyhow!("--sampler `{spec}`: expected N=ITEM,ITEM,... (e.g. 0=linear,repeat)")
    })?;
    let index = parse_index(index, spec, "--sampler")?;
    let mut s = SamplerSection::new(index as u32);
    for item in rest.split(',').map(str::trim) {
        if item.is_empty() {
            bail!("--sampler `{spec}`: empty item");
        }
        if let Some(mode) = address_word(item) {
            s.address = [mode; 3];
            continue;
        }
        match item.split_once('=') {
            None => match item {
                "nearest" | "linear" => {
                    let f = filter_word(item, item, spec)?;
                    s.min_filter = f;
                    s.mag_filter = f;
                }
                "trilinear" => {
                    s.min_filter = Filter::Linear;
                    s.mag_filter = Filter::Linear;
                    s.mip_filter = Filter::Linear;
                }
                "unnormalized" => s.normalized_coords = false,
                other => {
                    bail!("--sampler `{spec}`: unknown item `{other}` (see `tgsi render --help`)")
                }
            },
            Some((key, value)) => match key {
                "min" => s.min_filter = filter_word(value, item, spec)?,
                "mag" => s.mag_filter = filter_word(value, item, spec)?,
                "mip" => {
                    s.mip_filter = match value {
                        "none" => Filter::None,
                        v => filter_word(v, item, spec)?,
                    }
                }
                "u" | "v" | "w" => {
                    let axis = match key {
                        "u" => 0,
                        "v" => 1,
                        _ => 2,
                    };
                    s.address[axis] = address_word(value).ok_or_else(|| {
                        anyhow!(
                            "--sampler `{spec}`: `{item}`: unknown address mode `{value}` (expected repeat, clamp, border, mirror or mirror_once)"
                        )
                    })?;
                }
                "border" => {
                    let parts: Vec<&str> = value.split(':').collect();
                    if parts.len() != 4 {
                        bail!(
                            "--sampler `{spec}`: `{item}`: expected border=R:G:B:A (four numbers)"
                        );
                    }
                    for (k, p) in parts.iter().enumerate() {
                        s.border[k] = float_of(p, item, spec)?;
                    }
                }
                "lod_bias" => s.lod_bias = float_of(value, item, spec)?,
                "min_lod" => s.min_lod = float_of(value, item, spec)?,
                "max_lod" => s.max_lod = float_of(value, item, spec)?,
                "compare" => {
                    s.compare = Some(CompareFunc::from_word(value).ok_or_else(|| {
                        anyhow!("--sampler `{spec}`: `{item}`: unknown compare function `{value}`")
                    })?)
                }
                other => bail!(
                    "--sampler `{spec}`: unknown setting `{other}` (see `tgsi render --help`)"
                ),
            },
        }
    }
    if s.min_lod > s.max_lod {
        bail!(
            "--sampler `{spec}`: min_lod {} is above max_lod {}",
            s.min_lod,
            s.max_lod
        );
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("640x480").unwrap(), (640, 480));
        assert_eq!(parse_size("1X2").unwrap(), (1, 2));
        assert!(
            parse_size("640")
                .unwrap_err()
                .to_string()
                .contains("WIDTHxHEIGHT")
        );
        assert!(parse_size("0x4").unwrap_err().to_string().contains("width"));
        for huge in ["99999999999x1", "1x999999999999999999999999"] {
            let e = parse_size(huge).unwrap_err().to_string();
            assert!(e.contains("must be 1 to 16384 pixels"), "{e}");
        }
        assert!(
            parse_size("-4x4")
                .unwrap_err()
                .to_string()
                .contains("not a whole number")
        );
        assert!(
            parse_size("4xabc")
                .unwrap_err()
                .to_string()
                .contains("height `abc`")
        );
        assert!(parse_size("16384x16384").is_err());
        assert!(parse_size("16385x1").is_err());
    }

    #[test]
    fn texture_specs() {
        let t = parse_texture("2=examples/a:b.png:srgb").unwrap();
        assert_eq!(t.index, 2);
        assert_eq!(t.path, PathBuf::from("examples/a:b.png"));
        assert!(t.srgb && !t.mips);
        let t = parse_texture("0=x.png:mips:srgb").unwrap();
        assert!(t.srgb && t.mips);
        assert_eq!(t.path, PathBuf::from("x.png"));
        assert!(parse_texture("x.png").is_err());
        assert!(
            parse_texture("a=x.png")
                .unwrap_err()
                .to_string()
                .contains("not a resource index")
        );
        assert!(parse_texture("0=").is_err());
        assert!(parse_texture("5000=x.png").is_err());
    }

    #[test]
    fn sampler_defaults_and_items() {
        let s = parse_sampler("1=linear,repeat").unwrap();
        assert_eq!(s.index, 1);
        assert_eq!(
            (s.min_filter, s.mag_filter, s.mip_filter),
            (Filter::Linear, Filter::Linear, Filter::None)
        );
        assert_eq!(s.address, [AddressMode::Wrap; 3]);
        assert_eq!(s.border, [0.0; 4]);
        assert_eq!((s.min_lod, s.max_lod, s.lod_bias), (0.0, 1000.0, 0.0));
        assert!(s.normalized_coords && s.compare.is_none());

        let s = parse_sampler(
            "0=min=linear,mag=nearest,mip=nearest,mirror,v=clamp,w=border,border=1:0.5:0:1,lod_bias=-0.5,min_lod=1,max_lod=3,compare=less_equal,unnormalized",
        )
        .unwrap();
        assert_eq!(
            (s.min_filter, s.mag_filter, s.mip_filter),
            (Filter::Linear, Filter::Nearest, Filter::Nearest)
        );
        assert_eq!(
            s.address,
            [AddressMode::Mirror, AddressMode::Clamp, AddressMode::Border]
        );
        assert_eq!(s.border, [1.0, 0.5, 0.0, 1.0]);
        assert_eq!((s.lod_bias, s.min_lod, s.max_lod), (-0.5, 1.0, 3.0));
        assert_eq!(s.compare, Some(CompareFunc::LessEqual));
        assert!(!s.normalized_coords);

        // Later items override earlier ones; `trilinear` sets all three filters.
        let s = parse_sampler("0=repeat,u=mirror_once,trilinear").unwrap();
        assert_eq!(
            s.address,
            [
                AddressMode::MirrorOnce,
                AddressMode::Wrap,
                AddressMode::Wrap
            ]
        );
        assert_eq!(s.mip_filter, Filter::Linear);
    }

    #[test]
    fn sampler_errors_name_the_item() {
        let e = |s: &str| parse_sampler(s).unwrap_err().to_string();
        assert!(e("linear").contains("expected N=ITEM"));
        assert!(e("0=bilinear").contains("unknown item `bilinear`"));
        assert!(e("0=u=sideways").contains("unknown address mode `sideways`"));
        assert!(e("0=mip=cubic").contains("expected nearest or linear, found `cubic`"));
        assert!(e("0=border=1:2:3").contains("four numbers"));
        assert!(e("0=lod_bias=x").contains("`x` is not a number"));
        assert!(e("0=compare=sometimes").contains("unknown compare function"));
        assert!(e("0=linear,,repeat").contains("empty item"));
        assert!(e("0=min_lod=4,max_lod=2").contains("above max_lod"));
        assert!(e("0=speed=fast").contains("unknown setting `speed`"));
    }
}
