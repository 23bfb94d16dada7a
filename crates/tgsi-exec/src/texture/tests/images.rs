//! Images: atomics in lane order, loads and stores with their bounds and
//! formats.

use super::*;

/// Runs image opcode `op` on the 1D `img` in its own format and returns
/// the destination (unwrapping the result).
fn iop(img: &SharedImage, op: Opcode, srcs: &[Reg], mask: u8, active: u16) -> Reg {
    let mut out = [[0u32; LANES]; 4];
    image_op(
        img,
        op,
        T::Tex1D,
        img.layout.format,
        srcs,
        mask,
        active,
        &mut out,
    )
    .unwrap();
    out
}

#[test]
fn image_atomics_in_lane_order() {
    let img = image(Format::R32Uint, 4);
    // lanes 0 and 1 add 5 at x = 1: lane 0 sees 0, lane 1 sees 5; final 10
    let out = iop(
        &img,
        Opcode::ATOMUADD,
        &[splat_u([1, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        0b11,
    );
    assert_eq!((out[0][0], out[0][1], out[3][1]), (0, 5, 5));
    // out of range: returns 0, writes nothing
    let out = iop(
        &img,
        Opcode::ATOMUADD,
        &[splat_u([4, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(out[0][0], 0);
    let t = img.to_texture();
    assert_eq!(t.texel(0, 1, 0, 0, 0)[0], 10);
    assert_eq!(t.levels[0].iter().map(|&b| b as u32).sum::<u32>(), 10);
    // CAS: old 10 == 10 -> 3; second lane sees 3 != 10 -> keeps 3
    let out = iop(
        &img,
        Opcode::ATOMCAS,
        &[
            splat_u([1, 0, 0, 0]),
            splat_u([10, 0, 0, 0]),
            splat_u([3, 0, 0, 0]),
        ],
        1,
        0b11,
    );
    assert_eq!((out[0][0], out[0][1]), (10, 3));
    // INC_WRAP with v = 3 on old 3: n = 4 > 3 -> 0; DEC_WRAP v = 5 on old 0 -> 0, then 0 again
    iop(
        &img,
        Opcode::ATOMINC_WRAP,
        &[splat_u([1, 0, 0, 0]), splat_u([3, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 0);
    iop(
        &img,
        Opcode::ATOMXCHG,
        &[splat_u([1, 0, 0, 0]), splat_u([2, 0, 0, 0])],
        1,
        1,
    );
    iop(
        &img,
        Opcode::ATOMDEC_WRAP,
        &[splat_u([1, 0, 0, 0]), splat_u([5, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 1);
    let s = (-4i32) as u32;
    iop(
        &img,
        Opcode::ATOMIMIN,
        &[splat_u([1, 0, 0, 0]), splat_u([s, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], s);
    iop(
        &img,
        Opcode::ATOMUMIN,
        &[splat_u([1, 0, 0, 0]), splat_u([9, 0, 0, 0])],
        1,
        1,
    );
    assert_eq!(img.to_texture().texel(0, 1, 0, 0, 0)[0], 9);
    // atomics on a non-R32 format are refused
    let rgba = image(Format::Rgba8Unorm, 2);
    let mut out = [[0u32; LANES]; 4];
    assert!(
        image_op(
            &rgba,
            Opcode::ATOMUADD,
            T::Tex1D,
            rgba.layout.format,
            &[splat_u([0; 4]), splat_u([0; 4])],
            1,
            1,
            &mut out
        )
        .is_err()
    );
}

#[test]
fn image_load_store_bounds_and_formats() {
    let img = image(Format::Rgba8Unorm, 2);
    // full store of (1, 0.5, 0, 1) at x = 1 -> bytes 255, 128, 0, 255
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([1, 0, 0, 0]), splat([1.0, 0.5, 0.0, 1.0])],
        0xF,
        1,
    );
    // masked store of .y only at x = 1 with 0.2 -> byte 51
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([1, 0, 0, 0]), splat([0.0, 0.2, 0.0, 0.0])],
        0b10,
        1,
    );
    // out-of-range store dropped
    iop(
        &img,
        Opcode::STORE,
        &[splat_u([2, 0, 0, 0]), splat([1.0; 4])],
        0xF,
        1,
    );
    let t = img.to_texture();
    assert_eq!(t.levels[0], vec![0, 0, 0, 0, 255, 51, 0, 255]);
    let out = iop(&img, Opcode::LOAD, &[splat_u([1, 0, 0, 0])], 0xF, 1);
    assert_eq!(lane_f(&out, 0), [1.0, 0.2, 0.0, 1.0]);
    let out = iop(&img, Opcode::LOAD, &[splat_u([7, 0, 0, 0])], 0xF, 1);
    assert_eq!(lane_f(&out, 0), [0.0; 4]);
    // a 1-byte format: writes touch only their byte
    let r8 = image(Format::R8Uint, 5);
    iop(
        &r8,
        Opcode::STORE,
        &[splat_u([3, 0, 0, 0]), splat_u([300, 0, 0, 0])],
        0xF,
        1,
    );
    assert_eq!(r8.to_texture().levels[0], vec![0, 0, 0, 255, 0]);
    let out = iop(&r8, Opcode::RESQ, &[], 0xF, 1);
    assert_eq!([out[0][0], out[1][0], out[2][0], out[3][0]], [5, 0, 0, 1]);
    let mut back = Texture::new(T::Tex1D, Format::R8Uint, [5, 1, 1], 1, 1, 1).unwrap();
    r8.write_back(&mut back);
    assert_eq!(back.levels[0][3], 255);
}
