//! The class-linkage chunk (`IFCE`): the class types, class instances and
//! interface slots of a shader that uses HLSL interfaces, decoded, encoded
//! byte for byte, and printed as fxc's "Available Class Types", "Available
//! Class Instances" and "Interface slots" sections.
//!
//! Layout: a 36-byte header (instance count, class-type count, slot-record
//! count, total slot count, instance offset, class-type offset, slot-record
//! offset and two words fxc always fills the same way), the slot records (16
//! bytes: slot span, id count, type-id array offset, table-id array offset),
//! the class types (12 bytes: name offset and four u16: id, constant-buffer
//! stride, texture, sampler), the class instances (16 bytes: name offset and
//! six u16: type, element count, constant buffer, offset in it, texture,
//! sampler), then per slot record its u16 type ids (padded to 4 with 0xAB)
//! and u32 table ids, then the names, each padded to 4.

use super::DecodeError;
use super::blob::{Bytes, Writer, to_u32};

/// A class type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassType {
    /// Class name.
    pub name: String,
    /// The first u16 after the name (0 in every fxc blob; the listing's
    /// `ID` column is the type's position in the list).
    pub id_field: u16,
    /// Constant-buffer stride.
    pub cb_stride: u16,
    /// Texture slot.
    pub texture: u16,
    /// Sampler slot.
    pub sampler: u16,
}

/// A class instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassInstance {
    /// Instance name.
    pub name: String,
    /// Class type id.
    pub type_id: u16,
    /// Array elements.
    pub element_count: u16,
    /// Constant buffer.
    pub constant_buffer: u16,
    /// Offset in the constant buffer.
    pub cb_offset: u16,
    /// Texture slot (`0xFFFF` = none).
    pub texture: u16,
    /// Sampler slot (`0xFFFF` = none).
    pub sampler: u16,
}

/// An interface slot record: `span` consecutive slots sharing one list of
/// (type id, function table id) pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterfaceSlot {
    /// Number of slots covered.
    pub span: u32,
    /// Class type ids.
    pub type_ids: Vec<u16>,
    /// Function table ids, one per type id.
    pub table_ids: Vec<u32>,
}

/// A decoded `IFCE` chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interfaces {
    /// Total interface slots.
    pub slot_count: u32,
    /// Class types.
    pub class_types: Vec<ClassType>,
    /// Class instances.
    pub class_instances: Vec<ClassInstance>,
    /// Slot records.
    pub slots: Vec<InterfaceSlot>,
    /// The two trailing header words (fxc: `OSGN` and `0x00100020`).
    pub reserved: [u32; 2],
}

/// The reserved header words fxc writes.
pub const IFCE_RESERVED: [u32; 2] = [0x4e47_534f, 0x0010_0020];

const HEADER_SIZE: usize = 36;

impl Interfaces {
    /// Decodes the payload (errors at payload-relative offsets).
    pub fn parse(payload: &[u8]) -> Result<Interfaces, DecodeError> {
        let b = Bytes::new(payload);
        let h = b.u32s(0, 9, "IFCE header")?;
        let (instance_count, type_count, record_count) =
            (h[0] as usize, h[1] as usize, h[2] as usize);
        let (instance_at, type_at, record_at) = (h[4] as usize, h[5] as usize, h[6] as usize);
        b.check_table(type_at, type_count, 12, "class types")
            .map_err(|e| e.moved_to(4))?;
        b.check_table(instance_at, instance_count, 16, "class instances")
            .map_err(|e| e.moved_to(0))?;
        b.check_table(record_at, record_count, 16, "interface slots")
            .map_err(|e| e.moved_to(8))?;
        let mut class_types = Vec::with_capacity(type_count);
        for i in 0..type_count {
            let at = type_at + 12 * i;
            let name = b.cstr_at_field(at, "class name")?;
            class_types.push(ClassType {
                name,
                id_field: b.u16(at + 4, "class id")?,
                cb_stride: b.u16(at + 6, "class stride")?,
                texture: b.u16(at + 8, "class texture")?,
                sampler: b.u16(at + 10, "class sampler")?,
            });
        }
        let mut class_instances = Vec::with_capacity(instance_count);
        for i in 0..instance_count {
            let at = instance_at + 16 * i;
            let name = b.cstr_at_field(at, "instance name")?;
            class_instances.push(ClassInstance {
                name,
                type_id: b.u16(at + 4, "instance type")?,
                element_count: b.u16(at + 6, "instance elements")?,
                constant_buffer: b.u16(at + 8, "instance constant buffer")?,
                cb_offset: b.u16(at + 10, "instance offset")?,
                texture: b.u16(at + 12, "instance texture")?,
                sampler: b.u16(at + 14, "instance sampler")?,
            });
        }
        let mut slots = Vec::with_capacity(record_count);
        for i in 0..record_count {
            let at = record_at + 16 * i;
            let w = b.u32s(at, 4, "interface slot")?;
            let count = w[1] as usize;
            b.check_table(w[2] as usize, count, 2, "slot type ids")
                .map_err(|e| e.moved_to(at + 8))?;
            let type_ids = (0..count)
                .map(|k| b.u16(w[2] as usize + 2 * k, "slot type id"))
                .collect::<Result<Vec<u16>, _>>()?;
            let table_ids = b
                .u32s(w[3] as usize, count, "slot table ids")
                .map_err(|e| e.moved_to(at + 12))?;
            slots.push(InterfaceSlot {
                span: w[0],
                type_ids,
                table_ids,
            });
        }
        Ok(Interfaces {
            slot_count: h[3],
            class_types,
            class_instances,
            slots,
            reserved: [h[7], h[8]],
        })
    }

    /// Encodes the payload in fxc's layout.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        let record_at = HEADER_SIZE;
        let type_at = record_at + 16 * self.slots.len();
        let instance_at = type_at + 12 * self.class_types.len();
        for v in [
            to_u32(self.class_instances.len()),
            to_u32(self.class_types.len()),
            to_u32(self.slots.len()),
            self.slot_count,
            to_u32(instance_at),
            to_u32(type_at),
            to_u32(record_at),
            self.reserved[0],
            self.reserved[1],
        ] {
            w.u32(v);
        }
        let tables_at = instance_at + 16 * self.class_instances.len();
        w.raw(&vec![0; tables_at - record_at]);
        let mut slot_arrays = Vec::with_capacity(self.slots.len());
        for s in &self.slots {
            let types = w.pos();
            for &t in &s.type_ids {
                w.u16(t);
            }
            w.align4();
            let tables = w.pos();
            for &t in &s.table_ids {
                w.u32(t);
            }
            slot_arrays.push((types, tables));
        }
        let mut names: Vec<(String, usize)> = Vec::new();
        let mut name_at = |w: &mut Writer, s: &str| -> usize {
            if let Some((_, at)) = names.iter().find(|(n, _)| n == s) {
                return *at;
            }
            let at = w.cstr(s);
            w.align4();
            names.push((s.to_string(), at));
            at
        };
        let instance_names: Vec<usize> = self
            .class_instances
            .iter()
            .map(|c| name_at(&mut w, &c.name))
            .collect();
        let type_names: Vec<usize> = self
            .class_types
            .iter()
            .map(|c| name_at(&mut w, &c.name))
            .collect();
        for (i, (s, (types, tables))) in self.slots.iter().zip(slot_arrays).enumerate() {
            let at = record_at + 16 * i;
            w.patch_u32(at, s.span);
            w.patch_u32(at + 4, to_u32(s.type_ids.len()));
            w.patch_u32(at + 8, to_u32(types));
            w.patch_u32(at + 12, to_u32(tables));
        }
        for (i, (c, name)) in self.class_types.iter().zip(type_names).enumerate() {
            let at = type_at + 12 * i;
            w.patch_u32(at, to_u32(name));
            w.patch_u32(
                at + 4,
                u32::from(c.id_field) | (u32::from(c.cb_stride) << 16),
            );
            w.patch_u32(at + 8, u32::from(c.texture) | (u32::from(c.sampler) << 16));
        }
        for (i, (c, name)) in self.class_instances.iter().zip(instance_names).enumerate() {
            let at = instance_at + 16 * i;
            w.patch_u32(at, to_u32(name));
            w.patch_u32(
                at + 4,
                u32::from(c.type_id) | (u32::from(c.element_count) << 16),
            );
            w.patch_u32(
                at + 8,
                u32::from(c.constant_buffer) | (u32::from(c.cb_offset) << 16),
            );
            w.patch_u32(at + 12, u32::from(c.texture) | (u32::from(c.sampler) << 16));
        }
        w.finish()
    }

    /// fxc's class and interface-slot sections, starting with a `//` line
    /// and ending with the last slot separator.
    pub fn listing(&self) -> String {
        let mut out = String::from("//\n// Available Class Types:\n//\n");
        out.push_str("// Name                             ID CB Stride Texture Sampler\n");
        out.push_str("// ------------------------------ ---- --------- ------- -------\n");
        for (id, c) in self.class_types.iter().enumerate() {
            out.push_str(&format!(
                "// {:<30} {id:>4} {:>9} {:>7} {:>7}\n",
                c.name, c.cb_stride, c.texture, c.sampler
            ));
        }
        out.push_str("//\n");
        if !self.class_instances.is_empty() {
            out.push_str("// Available Class Instances:\n//\n");
            out.push_str("// Name                        Type CB CB Offset Texture Sampler\n");
            out.push_str("// --------------------------- ---- -- --------- ------- -------\n");
            for c in &self.class_instances {
                let name = if c.element_count > 1 {
                    format!("{}[{}]", c.name, c.element_count)
                } else {
                    c.name.clone()
                };
                let slot = |v: u16| {
                    if v == 0xFFFF {
                        "-".to_string()
                    } else {
                        v.to_string()
                    }
                };
                out.push_str(&format!(
                    "// {name:<27} {:>4} {:>2} {:>9} {:>7} {:>7}\n",
                    c.type_id,
                    c.constant_buffer,
                    c.cb_offset,
                    slot(c.texture),
                    slot(c.sampler)
                ));
            }
            out.push_str("//\n");
        }
        out.push_str(&format!(
            "// Interface slots, {} total:\n//\n",
            self.slot_count
        ));
        out.push_str("//             Slots\n");
        let rule = "// +----------+---------+---------------------------------------\n";
        out.push_str(rule);
        let mut start = 0u32;
        for s in &self.slots {
            let span = if s.span == 1 {
                start.to_string()
            } else {
                format!("{}-{}", start, start.wrapping_add(s.span).wrapping_sub(1))
            };
            let types: String = s.type_ids.iter().map(|t| format!("{t:<4} ")).collect();
            let tables: String = s.table_ids.iter().map(|t| format!("{t:<4} ")).collect();
            out.push_str(&format!("// | Type ID  |   {span:<5} |{types}\n"));
            out.push_str(&format!("// | Table ID |         |{tables}\n"));
            out.push_str(rule);
            start = start.wrapping_add(s.span);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Interfaces {
        Interfaces {
            slot_count: 3,
            class_types: vec![
                ClassType {
                    name: "cA".into(),
                    id_field: 0,
                    cb_stride: 2,
                    texture: 0,
                    sampler: 0,
                },
                ClassType {
                    name: "cLongerName".into(),
                    id_field: 0,
                    cb_stride: 0,
                    texture: 0,
                    sampler: 0,
                },
            ],
            class_instances: vec![ClassInstance {
                name: "gInstance".into(),
                type_id: 1,
                element_count: 1,
                constant_buffer: 0,
                cb_offset: 13,
                texture: 0xFFFF,
                sampler: 0xFFFF,
            }],
            slots: vec![
                InterfaceSlot {
                    span: 2,
                    type_ids: vec![0, 1, 1],
                    table_ids: vec![0, 1, 2],
                },
                InterfaceSlot {
                    span: 1,
                    type_ids: vec![0, 1],
                    table_ids: vec![3, 4],
                },
            ],
            reserved: IFCE_RESERVED,
        }
    }

    #[test]
    fn round_trips_and_pads_like_fxc() {
        let s = sample();
        let bytes = s.to_bytes();
        assert_eq!(Interfaces::parse(&bytes).unwrap(), s);
        // Three u16 type ids are padded to 8 bytes with 0xAB.
        let first_types = u32::from_le_bytes(bytes[44..48].try_into().unwrap()) as usize;
        assert_eq!(&bytes[first_types + 6..first_types + 8], &[0xAB, 0xAB]);
        assert_eq!(bytes.len() % 4, 0);
    }

    #[test]
    fn prints_the_slot_table() {
        let text = sample().listing();
        assert!(
            text.contains("// cA                                0         2       0       0\n"),
            "{text}"
        );
        assert!(
            text.contains("// cLongerName                       1         0       0       0\n"),
            "{text}"
        );
        assert!(
            text.contains("// gInstance                      1  0        13       -       -\n"),
            "{text}"
        );
        assert!(
            text.contains("// | Type ID  |   0-1   |0    1    1    \n"),
            "{text}"
        );
        assert!(
            text.contains("// | Table ID |         |3    4    \n"),
            "{text}"
        );
        assert!(text.contains("// Interface slots, 3 total:\n"), "{text}");
    }

    #[test]
    fn malformed_ifce() {
        let mut bytes = sample().to_bytes();
        let e = Interfaces::parse(&bytes[..30]).unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.message.contains("IFCE header"), "{}", e.message);
        bytes[4] = 200;
        let e = Interfaces::parse(&bytes).unwrap_err();
        assert_eq!(e.offset, 4);
        assert!(
            e.message.contains("200 records of 12 bytes"),
            "{}",
            e.message
        );
    }
}
