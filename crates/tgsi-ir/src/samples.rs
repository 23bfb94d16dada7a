//! Direct3D 11's standard multisample patterns
//! (D3D11_STANDARD_MULTISAMPLE_PATTERN): where each sample of a pixel
//! lies, for 1, 2, 4, 8 and 16 samples. The machine's rasterizer, its
//! SAMPLE_POS and the SPIR-V translation all read them from here.

/// D3D standard sample positions in 1/16 pixel units from the pixel centre
/// (D3D11_STANDARD_MULTISAMPLE_PATTERN) for 1, 2, 4, 8 and 16 samples.
pub const POSITIONS_1: [(i8, i8); 1] = [(0, 0)];
pub const POSITIONS_2: [(i8, i8); 2] = [(4, 4), (-4, -4)];
pub const POSITIONS_4: [(i8, i8); 4] = [(-2, -6), (6, -2), (-6, 2), (2, 6)];
pub const POSITIONS_8: [(i8, i8); 8] = [
    (1, -3),
    (-1, 3),
    (5, 1),
    (-3, -5),
    (-5, 5),
    (-7, -1),
    (3, 7),
    (7, -7),
];
pub const POSITIONS_16: [(i8, i8); 16] = [
    (1, 1),
    (-1, -3),
    (-3, 2),
    (4, -1),
    (-5, -2),
    (2, 5),
    (5, 3),
    (3, -5),
    (-2, 6),
    (0, -7),
    (-4, -6),
    (-6, 4),
    (-8, 0),
    (7, -4),
    (6, 7),
    (-7, -8),
];

/// Position of sample `i` of a `count`-sample pixel, in [0, 1] pixel units
/// from the pixel's top-left corner (D3D's centre-relative position + 0.5);
/// `None` for an unknown count or an index out of range.
pub fn sample_position(count: u32, i: u32) -> Option<(f32, f32)> {
    let table: &[(i8, i8)] = match count {
        1 => &POSITIONS_1,
        2 => &POSITIONS_2,
        4 => &POSITIONS_4,
        8 => &POSITIONS_8,
        16 => &POSITIONS_16,
        _ => return None,
    };
    let &(x, y) = table.get(i as usize)?;
    Some((x as f32 / 16.0 + 0.5, y as f32 / 16.0 + 0.5))
}
