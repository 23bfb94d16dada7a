//! Token streams several modules' unit tests check from both sides (one
//! decodes or prints them, another assembles or encodes to them), written
//! once.

/// fxc's `ps_5_0` division example as a SHDR/SHEX payload:
///
/// ```text
/// ps_5_0
/// dcl_globalFlags refactoringAllowed
/// dcl_constantbuffer CB0[2], immediateIndexed
/// dcl_output o0.xyzw
/// div o0.x, cb0[0].x, cb0[1].x
/// mov o0.yzw, l(0,0,0,0)
/// ret
/// ```
pub const PS_DIV: [u32; 28] = [
    0x0000_0050,
    0x0000_001c,
    0x0100_086a,
    0x0400_0059,
    0x0020_8e46,
    0,
    2,
    0x0300_0065,
    0x0010_20f2,
    0,
    0x0900_000e,
    0x0010_2012,
    0,
    0x0020_800a,
    0,
    0,
    0x0020_800a,
    0,
    1,
    0x0800_0036,
    0x0010_20e2,
    0,
    0x0000_4002,
    0,
    0,
    0,
    0,
    0x0100_003e,
];

/// `printf "%0 is fine!", r10.z`: a `customdata` block of class 4 (shader
/// message 0x00200102, printf format, one operand, the padded string).
pub const PRINTF: [u32; 12] = [
    0x0000_2035,
    0x0c,
    0x0020_0102,
    1,
    0xb,
    1,
    2,
    0x0010_002a,
    0xa,
    0x6920_3025,
    0x6966_2073,
    0x0021_656e,
];
