//! Render state of a draw: topologies, depth/stencil, blending, culling,
//! viewport and scissor. Every enumeration has one table of names (the
//! words of `shader_test.md`), from which parsing and printing derive.

/// Declares a fieldless enum with its table of names.
macro_rules! named_enum {
    ($(#[$m:meta])* $name:ident { $($v:ident $text:literal,)* }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($v,)* }
        impl $name {
            /// Every value with its name, in table order.
            pub const ALL: &'static [($name, &'static str)] = &[$(($name::$v, $text),)*];
            /// The value a name stands for.
            pub fn from_name(s: &str) -> Option<$name> {
                Self::ALL.iter().find(|(_, n)| *n == s).map(|(v, _)| *v)
            }
            pub fn name(self) -> &'static str {
                Self::ALL.iter().find(|(v, _)| *v == self).map_or("", |(_, n)| n)
            }
            /// The names, for messages.
            pub fn names() -> String {
                Self::ALL.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(", ")
            }
        }
    };
}

named_enum!(
    /// A comparison of the depth and stencil tests.
    CompareFunc {
        Never "never",
        Less "less",
        Equal "equal",
        LessEqual "less_equal",
        Greater "greater",
        NotEqual "not_equal",
        GreaterEqual "greater_equal",
        Always "always",
    }
);

impl CompareFunc {
    /// `a FUNC b` (IEEE comparisons: NaN compares unequal to everything).
    #[inline]
    pub fn test<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CompareFunc::Never => false,
            CompareFunc::Less => a < b,
            CompareFunc::Equal => a == b,
            CompareFunc::LessEqual => a <= b,
            CompareFunc::Greater => a > b,
            CompareFunc::NotEqual => a != b,
            CompareFunc::GreaterEqual => a >= b,
            CompareFunc::Always => true,
        }
    }
}

named_enum!(
    /// What a stencil outcome writes.
    StencilOp {
        Keep "keep",
        Zero "zero",
        Replace "replace",
        IncrSat "incr_sat",
        DecrSat "decr_sat",
        Invert "invert",
        Incr "incr",
        Decr "decr",
    }
);

impl StencilOp {
    /// The new 8-bit value from the stored one and the reference.
    pub fn apply(self, stored: u8, reference: u8) -> u8 {
        match self {
            StencilOp::Keep => stored,
            StencilOp::Zero => 0,
            StencilOp::Replace => reference,
            StencilOp::IncrSat => stored.saturating_add(1),
            StencilOp::DecrSat => stored.saturating_sub(1),
            StencilOp::Invert => !stored,
            StencilOp::Incr => stored.wrapping_add(1),
            StencilOp::Decr => stored.wrapping_sub(1),
        }
    }
}

named_enum!(
    /// A blend factor (Direct3D 11's D3D11_BLEND).
    BlendFactor {
        Zero "zero",
        One "one",
        SrcColor "src_color",
        InvSrcColor "inv_src_color",
        SrcAlpha "src_alpha",
        InvSrcAlpha "inv_src_alpha",
        DstColor "dst_color",
        InvDstColor "inv_dst_color",
        DstAlpha "dst_alpha",
        InvDstAlpha "inv_dst_alpha",
        SrcAlphaSat "src_alpha_sat",
        BlendFactor "blend_factor",
        InvBlendFactor "inv_blend_factor",
    }
);

impl BlendFactor {
    /// The factor as used for alpha: each `*_color` factor reads as its
    /// `*_alpha` counterpart.
    pub fn for_alpha(self) -> BlendFactor {
        match self {
            BlendFactor::SrcColor => BlendFactor::SrcAlpha,
            BlendFactor::InvSrcColor => BlendFactor::InvSrcAlpha,
            BlendFactor::DstColor => BlendFactor::DstAlpha,
            BlendFactor::InvDstColor => BlendFactor::InvDstAlpha,
            other => other,
        }
    }
}

named_enum!(
    /// A blend operation.
    BlendOp {
        Add "add",
        Subtract "subtract",
        RevSubtract "rev_subtract",
        Min "min",
        Max "max",
    }
);

named_enum!(
    /// Which faces are culled.
    CullMode {
        None "none",
        Front "front",
        Back "back",
    }
);

named_enum!(
    /// The winding of front faces on screen.
    FrontFace {
        Clockwise "cw",
        CounterClockwise "ccw",
    }
);

named_enum!(
    /// The primitive topologies without a control-point count.
    BasicTopology {
        PointList "point list",
        LineList "line list",
        LineStrip "line strip",
        TriangleList "triangle list",
        TriangleStrip "triangle strip",
        TriangleFan "triangle fan",
        LineListAdj "line list adj",
        LineStripAdj "line strip adj",
        TriangleListAdj "triangle list adj",
        TriangleStripAdj "triangle strip adj",
    }
);

impl BasicTopology {
    /// Whether an indexed draw of this topology restarts at the index
    /// 0xFFFFFFFF (strips and fans; in lists it is an index like another).
    pub fn restarts(self) -> bool {
        matches!(
            self,
            BasicTopology::LineStrip
                | BasicTopology::TriangleStrip
                | BasicTopology::TriangleFan
                | BasicTopology::LineStripAdj
                | BasicTopology::TriangleStripAdj
        )
    }
}

/// A primitive topology of a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Topology {
    Basic(BasicTopology),
    /// `patch list C`: C (1 to 32) control points per patch.
    PatchList(u32),
}

impl Topology {
    /// Parses the words of a topology at the start of `words`; returns it
    /// and the number of words used.
    pub fn parse_words(words: &[&str]) -> Result<(Topology, usize), String> {
        if words.len() >= 2 && words[..2] == ["patch", "list"] {
            let c = words
                .get(2)
                .and_then(|w| w.parse::<u32>().ok())
                .ok_or("`patch list` needs a control point count")?;
            if !(1..=32).contains(&c) {
                return Err("a patch has 1 to 32 control points".into());
            }
            return Ok((Topology::PatchList(c), 3));
        }
        // Longest name first, so that `line list adj` wins over `line list`.
        let mut best: Option<(BasicTopology, usize)> = None;
        for (t, name) in BasicTopology::ALL {
            let n: Vec<&str> = name.split(' ').collect();
            if words.len() >= n.len()
                && words[..n.len()] == n[..]
                && best.is_none_or(|(_, k)| n.len() > k)
            {
                best = Some((*t, n.len()));
            }
        }
        best.map(|(t, k)| (Topology::Basic(t), k)).ok_or_else(|| {
            format!(
                "unknown topology `{}` (expected {}, or patch list C)",
                words.join(" "),
                BasicTopology::names()
            )
        })
    }
}

impl std::fmt::Display for Topology {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Topology::Basic(t) => f.write_str(t.name()),
            Topology::PatchList(c) => write!(f, "patch list {c}"),
        }
    }
}

/// Depth test and writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DepthState {
    /// Direct3D's DepthEnable: off means no test and no writes.
    pub enabled: bool,
    pub func: CompareFunc,
    pub write: bool,
}

impl Default for DepthState {
    fn default() -> Self {
        DepthState {
            enabled: false,
            func: CompareFunc::Less,
            write: true,
        }
    }
}

/// The stencil test of one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilFace {
    pub func: CompareFunc,
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
}

impl Default for StencilFace {
    fn default() -> Self {
        StencilFace {
            func: CompareFunc::Always,
            fail: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            pass: StencilOp::Keep,
        }
    }
}

/// The stencil test: passes when (reference & read_mask) FUNC (stored & read_mask).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StencilState {
    pub enabled: bool,
    pub reference: u8,
    pub read_mask: u8,
    pub write_mask: u8,
    pub front: StencilFace,
    pub back: StencilFace,
}

impl Default for StencilState {
    fn default() -> Self {
        StencilState {
            enabled: false,
            reference: 0,
            read_mask: 0xff,
            write_mask: 0xff,
            front: StencilFace::default(),
            back: StencilFace::default(),
        }
    }
}

/// Blending of one render target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlendState {
    pub enabled: bool,
    pub src: BlendFactor,
    pub dst: BlendFactor,
    pub op: BlendOp,
    pub src_alpha: BlendFactor,
    pub dst_alpha: BlendFactor,
    pub op_alpha: BlendOp,
    /// Channels written (bit 0 = r ... bit 3 = a).
    pub write_mask: u8,
}

impl Default for BlendState {
    fn default() -> Self {
        BlendState {
            enabled: false,
            src: BlendFactor::One,
            dst: BlendFactor::Zero,
            op: BlendOp::Add,
            src_alpha: BlendFactor::One,
            dst_alpha: BlendFactor::Zero,
            op_alpha: BlendOp::Add,
            write_mask: 0xF,
        }
    }
}

/// The viewport: x = -1 maps to `x`, y = +1 to `y`; depth = min + z/w × (max − min).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub width: f32,
    pub height: f32,
    pub min_depth: f32,
    pub max_depth: f32,
}

impl Viewport {
    /// The whole `width` × `height` target, depth 0..1.
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport {
            x: 0.0,
            y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }
}

/// A rectangle of pixels: x, y, width, height.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rect {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

/// What a draw writes over its targets before its first fragment (a
/// render pass's clear on load): each target named, every texel and
/// sample of it, whatever the viewport, scissor, write masks and tests,
/// as a clear of the whole target before the draw would. The draw clears
/// a band of rows just before it shades that band, while the rows are in
/// the core's cache, rather than in a pass of its own over the targets. A
/// value for a target the draw does not have is left unused.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClearOnLoad {
    /// Per render target: its colour as floats, encoded as the draw's
    /// writes to the target are (linear light for an sRGB target).
    pub colors: [Option<[f32; 4]>; tgsi_exec::MAX_TARGETS],
    pub depth: Option<f32>,
    pub stencil: Option<u8>,
}

impl ClearOnLoad {
    /// Whether it clears nothing.
    pub fn is_empty(&self) -> bool {
        self.colors.iter().all(Option::is_none) && self.depth.is_none() && self.stencil.is_none()
    }
}

/// Everything a draw reads besides shaders, resources and targets.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderState {
    /// None: the whole target.
    pub viewport: Option<Viewport>,
    pub scissor: Option<Rect>,
    pub cull: CullMode,
    pub front: FrontFace,
    pub depth: DepthState,
    pub stencil: StencilState,
    /// Per render target.
    pub blend: [BlendState; tgsi_exec::MAX_TARGETS],
    pub blend_factor: [f32; 4],
    /// What the draw clears its targets to before it draws.
    pub clear: ClearOnLoad,
}

impl Default for RenderState {
    fn default() -> Self {
        RenderState {
            viewport: None,
            scissor: None,
            cull: CullMode::None,
            front: FrontFace::Clockwise,
            depth: DepthState::default(),
            stencil: StencilState::default(),
            blend: [BlendState::default(); tgsi_exec::MAX_TARGETS],
            blend_factor: [1.0; 4],
            clear: ClearOnLoad::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_topologies_take_the_longest_match() {
        for (f, n) in CompareFunc::ALL {
            assert_eq!(CompareFunc::from_name(n), Some(*f));
            assert_eq!(f.name(), *n);
        }
        assert_eq!(
            Topology::parse_words(&["line", "list", "adj", "4"]).unwrap(),
            (Topology::Basic(BasicTopology::LineListAdj), 3)
        );
        assert_eq!(
            Topology::parse_words(&["line", "list", "4"]).unwrap(),
            (Topology::Basic(BasicTopology::LineList), 2)
        );
        assert_eq!(
            Topology::parse_words(&["patch", "list", "3", "6"]).unwrap(),
            (Topology::PatchList(3), 3)
        );
        assert!(Topology::parse_words(&["patch", "list", "33"]).is_err());
        assert!(Topology::parse_words(&["quad", "list"]).is_err());
    }

    #[test]
    fn stencil_ops_wrap_and_saturate_in_eight_bits() {
        assert_eq!(StencilOp::Incr.apply(255, 0), 0);
        assert_eq!(StencilOp::IncrSat.apply(255, 0), 255);
        assert_eq!(StencilOp::Decr.apply(0, 0), 255);
        assert_eq!(StencilOp::DecrSat.apply(0, 0), 0);
        assert_eq!(StencilOp::Invert.apply(0x0f, 0), 0xf0);
        assert_eq!(StencilOp::Replace.apply(3, 9), 9);
        assert!(CompareFunc::NotEqual.test(f32::NAN, f32::NAN));
        assert!(!CompareFunc::LessEqual.test(f32::NAN, 1.0));
    }
}
