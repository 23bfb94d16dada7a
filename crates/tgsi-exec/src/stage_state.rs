//! What a batch carries for its stage: the fragment inputs of a draw
//! ([`FragEnv`], each input's [`InputSource`]) and what a geometry shader
//! emitted ([`Emits`]). The machine holds them; the fragment and geometry
//! stages fill and read them, so neither the machine nor the stages import
//! each other's state.

use super::LANES;

/// Where an input register's value comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum InputSource {
    Zero,
    Plane {
        plane: [[f32; 3]; 4],
        flat: bool,
    },
    /// The window position; z and w planes.
    Position {
        zw: [[f32; 3]; 2],
    },
    Face(f32),
    /// A flat input: the leading vertex's raw words.
    Flat([u32; 4]),
    /// Screen-linear (noperspective): channel c = `plane[c]` at (x, y), in f64.
    Linear([[f64; 3]; 4]),
    /// Perspective-correct: channel c = `plane[c](x, y) / inv_w(x, y)`, the
    /// planes of value/w and of 1/w in screen space.
    Perspective {
        plane: [[f64; 3]; 4],
        inv_w: [f64; 3],
    },
    /// The window position of a rasterized primitive: z from the depth
    /// plane; w = 1/w (`clip_w` false, Gallium's meaning) or the clip w
    /// (`clip_w` true, Direct3D's SV_Position).
    Window {
        z: [f64; 3],
        inv_w: [f64; 3],
        clip_w: bool,
    },
}

/// The fragment inputs of one draw, shared by its batches.
#[derive(Clone, Debug)]
pub struct FragEnv {
    /// By IN register index.
    pub inputs: Vec<InputSource>,
    pub position: InputSource,
    pub face: f32,
    pub integer_center: bool,
    pub lower_left: bool,
    pub height: u32,
    /// Samples per pixel of the draw.
    pub samples: u32,
    /// The shader runs once per sample (it reads SAMPLEID or SAMPLEPOS, or
    /// has an input at the SAMPLE location, and the draw has several samples).
    pub per_sample: bool,
    /// PRIMID of the primitive being shaded (the PRIMID system value).
    pub primitive_id: u32,
}

/// What EMIT and ENDPRIM recorded in one batch (reused across batches).
#[derive(Clone, Debug, Default)]
pub struct Emits {
    /// Output registers of every emitted vertex, in emission order.
    pub(crate) words: Vec<[u32; 4]>,
    pub(crate) events: Vec<Event>,
    /// Vertices emitted per lane.
    pub(crate) count: [u32; LANES],
    /// GS_MAX_OUTPUT_VERTICES.
    pub(crate) max_vertices: u32,
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Event {
    pub(crate) lane: u8,
    pub(crate) stream: u8,
    /// EMIT: where the vertex starts in `words`; ENDPRIM: `None`.
    pub(crate) first_word: Option<u32>,
}

impl Emits {
    /// Forgets the previous batch's emissions.
    pub fn clear(&mut self) {
        self.words.clear();
        self.events.clear();
        self.count = [0; LANES];
    }
}
