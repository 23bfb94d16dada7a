//! Shader libraries (`lib_*` targets): the library header chunk (`LIBH`,
//! the creator and the function names), the function chunks (`LIBF`, each
//! a complete nested DXBC container with its own RDEF, program and STAT)
//! and the function parameter signature (`LFS0`) inside them; decoded,
//! encoded byte for byte, and printed the way fxc lists a library.

use super::DecodeError;
use super::blob::{Bytes, Writer, to_u32};
use super::rdef::variable_type_name;

/// A `LIBH` function entry: profile mode and name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryFunction {
    /// 0 = `lib_4_0`/`lib_4_1`/`lib_5_0`, 1 = level-9 VS only, 2 = level-9
    /// PS only, 3 = level-9 VS and PS.
    pub mode: u32,
    /// Function name.
    pub name: String,
}

/// A decoded `LIBH` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LibraryHeader {
    /// First word (1 in every fxc library).
    pub version: u32,
    /// Compiler that wrote the library.
    pub creator: String,
    /// Library flags (printed as `flags N`).
    pub flags: u32,
    /// The functions, in order (one `LIBF` chunk each).
    pub functions: Vec<LibraryFunction>,
}

impl LibraryHeader {
    /// Decodes the payload.
    pub fn parse(payload: &[u8]) -> Result<LibraryHeader, DecodeError> {
        let b = Bytes::new(payload);
        let version = b.u32(0, "LIBH version")?;
        let creator_at = b.u32(4, "LIBH creator offset")? as usize;
        let flags = b.u32(8, "LIBH flags")?;
        let count = b.u32(12, "LIBH function count")? as usize;
        let table = b.u32(16, "LIBH function table offset")? as usize;
        let creator = b
            .cstr(creator_at, "library creator")
            .map_err(|e| e.moved_to(4))?;
        b.check_table(table, count, 8, "library functions")
            .map_err(|e| e.moved_to(12))?;
        let mut functions = Vec::with_capacity(count);
        for i in 0..count {
            let at = table + 8 * i;
            // (the table was checked: only the name itself can be bad)
            let name = b.cstr_at_field(at + 4, "function name")?;
            functions.push(LibraryFunction {
                mode: b.u32(at, "function mode")?,
                name,
            });
        }
        Ok(LibraryHeader {
            version,
            creator,
            flags,
            functions,
        })
    }

    /// Encodes the payload as fxc does: header, function table, creator and
    /// names packed without padding.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        let table = 20;
        let creator_at = table + 8 * self.functions.len();
        for v in [
            self.version,
            to_u32(creator_at),
            self.flags,
            to_u32(self.functions.len()),
            to_u32(table),
        ] {
            w.u32(v);
        }
        w.raw(&vec![0; 8 * self.functions.len()]);
        w.cstr(&self.creator);
        for (i, f) in self.functions.iter().enumerate() {
            let at = w.cstr(&f.name);
            w.patch_u32(table + 8 * i, f.mode);
            w.patch_u32(table + 8 * i + 4, to_u32(at));
        }
        w.finish()
    }

    /// fxc's library banner: the function list and the creator.
    pub fn listing(&self) -> String {
        let mut out = format!(
            "//\n// Library:  flags {}, {} functions:\n",
            self.flags,
            self.functions.len()
        );
        for (i, f) in self.functions.iter().enumerate() {
            out.push_str(&format!("//   {i}  {}\n", f.name));
        }
        out.push_str(&format!("//\n// Created by:  {}\n//\n", self.creator));
        out
    }
}

/// Parameter flag: an input.
pub const PARAMETER_IN: u32 = 1;
/// Parameter flag: an output.
pub const PARAMETER_OUT: u32 = 2;
/// No register (`-1`).
pub const NO_REGISTER: u32 = u32::MAX;

/// A function parameter (`D3D11_PARAMETER_DESC`); the first one of a
/// signature describes the return value and carries the function's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    /// Parameter name.
    pub name: String,
    /// Semantic (`None` when there is none).
    pub semantic: Option<String>,
    /// `D3D_SHADER_VARIABLE_TYPE`.
    pub base_type: u32,
    /// `D3D_SHADER_VARIABLE_CLASS`.
    pub class: u32,
    /// Rows (registers used).
    pub rows: u32,
    /// Columns (components per register).
    pub columns: u32,
    /// `D3D_INTERPOLATION_MODE`.
    pub interpolation: u32,
    /// [`PARAMETER_IN`] | [`PARAMETER_OUT`].
    pub flags: u32,
    /// First input register ([`NO_REGISTER`] when not an input).
    pub first_in_register: u32,
    /// First input component.
    pub first_in_component: u32,
    /// First output register ([`NO_REGISTER`] when not an output).
    pub first_out_register: u32,
    /// First output component.
    pub first_out_component: u32,
}

/// A decoded `LFS0` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterSignature {
    /// The return value, then the parameters.
    pub parameters: Vec<Parameter>,
}

const PARAMETER_SIZE: usize = 48;

impl ParameterSignature {
    /// Decodes the payload.
    pub fn parse(payload: &[u8]) -> Result<ParameterSignature, DecodeError> {
        let b = Bytes::new(payload);
        let count = b.u32(0, "parameter count")? as usize;
        let first = b.u32(4, "parameter offset")? as usize;
        b.check_table(first, count, PARAMETER_SIZE, "parameters")
            .map_err(|e| e.moved_to(0))?;
        let mut parameters = Vec::with_capacity(count);
        for i in 0..count {
            let at = first + PARAMETER_SIZE * i;
            let w = b.u32s(at, 12, "parameter")?;
            let name = b
                .cstr(w[0] as usize, "parameter name")
                .map_err(|e| e.moved_to(at))?;
            let semantic = if w[1] == 0 {
                None
            } else {
                Some(
                    b.cstr(w[1] as usize, "parameter semantic")
                        .map_err(|e| e.moved_to(at + 4))?,
                )
            };
            parameters.push(Parameter {
                name,
                semantic,
                base_type: w[2],
                class: w[3],
                rows: w[4],
                columns: w[5],
                interpolation: w[6],
                flags: w[7],
                first_in_register: w[8],
                first_in_component: w[9],
                first_out_register: w[10],
                first_out_component: w[11],
            });
        }
        Ok(ParameterSignature { parameters })
    }

    /// Encodes the payload: records, then each name and semantic in record
    /// order (packed), padded with 0xAB.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(to_u32(self.parameters.len()));
        w.u32(8);
        w.raw(&vec![0; PARAMETER_SIZE * self.parameters.len()]);
        for (i, p) in self.parameters.iter().enumerate() {
            let name = w.cstr(&p.name);
            let semantic = p.semantic.as_ref().map_or(0, |s| w.cstr(s));
            let at = 8 + PARAMETER_SIZE * i;
            for (k, v) in [
                to_u32(name),
                to_u32(semantic),
                p.base_type,
                p.class,
                p.rows,
                p.columns,
                p.interpolation,
                p.flags,
                p.first_in_register,
                p.first_in_component,
                p.first_out_register,
                p.first_out_component,
            ]
            .into_iter()
            .enumerate()
            {
                w.patch_u32(at + 4 * k, v);
            }
        }
        w.align4();
        w.finish()
    }

    /// fxc's "Function parameter signature" section, ending with `//`.
    pub fn listing(&self) -> String {
        let returns = self.parameters.first().is_some_and(|p| p.base_type != 0);
        let mut out = format!(
            "// Function parameter signature (return: {}, parameters: {}):\n//\n",
            if returns { "yes" } else { "no" },
            self.parameters.len().saturating_sub(1)
        );
        out.push_str("// Name                 SemanticName         In 1st,Num,Mask Out 1st,Num,Mask Type                           \n");
        out.push_str("// -------------------- -------------------- --------------- ---------------- ------------------------------ \n");
        for p in &self.parameters {
            let mask = match p.columns {
                1 => "x",
                2 => "xy",
                3 => "xyz",
                4 => "xyzw",
                _ => "",
            };
            let (in_reg, in_num, in_mask) = if p.first_in_register != NO_REGISTER {
                (
                    format!("v{}", p.first_in_register),
                    p.rows.to_string(),
                    mask,
                )
            } else {
                (String::new(), String::new(), "")
            };
            let (out_reg, out_num, out_mask) = if p.first_out_register != NO_REGISTER {
                (
                    format!("o{}", p.first_out_register),
                    p.rows.to_string(),
                    mask,
                )
            } else {
                (String::new(), String::new(), "")
            };
            out.push_str(&format!(
                "// {:<20} {:<20}  {in_reg:<4}{in_num:>3}   {in_mask:<4}   {out_reg:<4}{out_num:>3}   {out_mask:<4} {}\n",
                p.name,
                p.semantic.as_deref().unwrap_or(""),
                parameter_type(p)
            ));
        }
        out.push_str("//\n");
        out
    }
}

/// The `Type` column: `in float3`, `inout row_major float2x3`, `void`.
fn parameter_type(p: &Parameter) -> String {
    if p.base_type == 0 {
        return "void".to_string();
    }
    let mut s = String::new();
    if p.flags & PARAMETER_IN != 0 {
        s.push_str("in");
    }
    if p.flags & PARAMETER_OUT != 0 {
        s.push_str("out");
    }
    if !s.is_empty() {
        s.push(' ');
    }
    let base =
        u16::try_from(p.base_type).map_or_else(|_| p.base_type.to_string(), variable_type_name);
    match p.class {
        1 => s.push_str(&format!("{base}{}", p.columns)),
        2 => s.push_str(&format!("row_major {base}{}x{}", p.rows, p.columns)),
        3 => s.push_str(&format!("{base}{}x{}", p.columns, p.rows)),
        _ => s.push_str(&base),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_header_round_trips_unpadded() {
        let h = LibraryHeader {
            version: 1,
            creator: "Microsoft (R) HLSL Shader Compiler 10.1".into(),
            flags: 0,
            functions: vec![
                LibraryFunction {
                    mode: 0,
                    name: "A".into(),
                },
                LibraryFunction {
                    mode: 3,
                    name: "Bee".into(),
                },
            ],
        };
        let bytes = h.to_bytes();
        assert_eq!(bytes.len(), 20 + 16 + 40 + 2 + 4);
        assert_eq!(LibraryHeader::parse(&bytes).unwrap(), h);
        assert_eq!(
            h.listing(),
            "//\n// Library:  flags 0, 2 functions:\n//   0  A\n//   1  Bee\n//\n\
             // Created by:  Microsoft (R) HLSL Shader Compiler 10.1\n//\n"
        );
        let e = LibraryHeader::parse(&bytes[..10]).unwrap_err();
        assert_eq!(e.offset, 8);
    }

    #[allow(clippy::too_many_arguments)]
    fn param(
        name: &str,
        semantic: Option<&str>,
        class: u32,
        rows: u32,
        cols: u32,
        flags: u32,
        vin: u32,
        vout: u32,
    ) -> Parameter {
        Parameter {
            name: name.into(),
            semantic: semantic.map(Into::into),
            base_type: 3,
            class,
            rows,
            columns: cols,
            interpolation: 0,
            flags,
            first_in_register: vin,
            first_in_component: 0,
            first_out_register: vout,
            first_out_component: 0,
        }
    }

    #[test]
    fn parameter_signature_round_trips_and_prints() {
        let sig = ParameterSignature {
            parameters: vec![
                param(
                    "TestFunction",
                    Some("SV_TARGET"),
                    1,
                    1,
                    3,
                    PARAMETER_OUT,
                    NO_REGISTER,
                    0,
                ),
                param("input", None, 1, 1, 3, PARAMETER_IN, 0, NO_REGISTER),
                param("val3", None, 3, 3, 2, PARAMETER_IN | PARAMETER_OUT, 2, 1),
            ],
        };
        let bytes = sig.to_bytes();
        assert_eq!(ParameterSignature::parse(&bytes).unwrap(), sig);
        let text = sig.listing();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "// Function parameter signature (return: yes, parameters: 2):"
        );
        assert_eq!(
            lines[4],
            "// TestFunction         SV_TARGET                              o0    1   xyz  out float3"
        );
        assert_eq!(
            lines[5],
            "// input                                      v0    1   xyz                   in float3"
        );
        assert_eq!(
            lines[6],
            "// val3                                       v2    3   xy     o1    3   xy   inout float2x3"
        );
        let e = ParameterSignature::parse(&bytes[..60]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("3 records of 48 bytes"), "{}", e.message);
    }
}
