//! The declaration table and every check about registers: declarations
//! (duplicates, overlaps, ARRAY ids, order), immediates, and whether an
//! operand's register, 2-D index, indirect address register and ARRAY id
//! exist.

use super::{Reporter, Site};
use crate::enums::{File, Primitive, Processor, PropertyName};
use crate::ir::{Declaration, Index, IndirectAddr, Register, Shader, Statement, WriteMask};

/// How many declared ranges a "declared are ..." note lists.
const RANGES_IN_NOTE: usize = 8;

/// What the shader declares, built once and asked by the operand checks.
pub(crate) struct RegisterTable<'a> {
    processor: Processor,
    decls: Vec<(usize, &'a Declaration)>,
    /// The declarations of each file, indexed by file number.
    by_file: Vec<Vec<&'a Declaration>>,
    num_immediates: usize,
    /// Vertices of a per-vertex input array (GS: from GS_INPUT_PRIMITIVE; TCS/TES: 32).
    input_vertices: Option<u32>,
    /// Vertices of the TCS per-vertex output array (TCS_VERTICES_OUT).
    output_vertices: Option<u32>,
    /// MEMORY indices already warned about (one warning per register).
    memory_warned: std::cell::RefCell<Vec<i32>>,
}

/// A register name for messages: `TEMP[3]`, `CONST[1][4]`, `IN[2][0]`.
pub(crate) fn register_name(file: File, dimension: Option<&Index>, index: &Index) -> String {
    let bracket = |i: &Index| match &i.indirect {
        None => format!("[{}]", i.offset),
        Some(a) => {
            let array = if a.array_id != 0 {
                format!("({})", a.array_id)
            } else {
                String::new()
            };
            match i.offset {
                0 => format!("[{}[{}].{}]{array}", a.file, a.index, a.component.letter()),
                o if o < 0 => format!(
                    "[{}[{}].{}-{}]{array}",
                    a.file,
                    a.index,
                    a.component.letter(),
                    -(o as i64)
                ),
                o => format!(
                    "[{}[{}].{}+{o}]{array}",
                    a.file,
                    a.index,
                    a.component.letter()
                ),
            }
        }
    };
    let dim = dimension.map(bracket).unwrap_or_default();
    format!("{file}{dim}{}", bracket(index))
}

/// True when `later` declares the same registers as `earlier` again in a way
/// Mesa prints and runs: a `dvec` varying split into two declarations whose
/// component masks are disjoint (`DCL OUT[2].xy` and `DCL OUT[2].zw`), or, when
/// the masks are unprinted (both `xyzw`), the very same declaration twice, as
/// Mesa's `tgsi_dump` writes the split pair. Everything else but the mask
/// must agree; different semantics or overlapping explicit masks conflict.
/// Only inputs and outputs are ever split so.
fn splits_one_register(earlier: &Declaration, later: &Declaration) -> bool {
    let masks_fit = earlier.usage_mask & later.usage_mask == WriteMask::empty()
        || (earlier.usage_mask == WriteMask::XYZW && later.usage_mask == WriteMask::XYZW);
    let same_but_mask = Declaration {
        usage_mask: earlier.usage_mask,
        ..later.clone()
    } == *earlier;
    matches!(later.file, File::Input | File::Output) && masks_fit && same_but_mask
}

fn range_name(d: &Declaration) -> String {
    let dim = d.dimension.map(|n| format!("[{n}]")).unwrap_or_default();
    if d.first == d.last {
        format!("{}{dim}[{}]", d.file, d.first)
    } else {
        format!("{}{dim}[{}..{}]", d.file, d.first, d.last)
    }
}

/// Files whose registers hold values an instruction can read.
pub(crate) fn is_value_file(file: File) -> bool {
    matches!(
        file,
        File::Const
            | File::Input
            | File::Output
            | File::Temp
            | File::Address
            | File::Immediate
            | File::SystemValue
    )
}

impl<'a> RegisterTable<'a> {
    /// Collects declarations and immediates, reporting problems with them.
    pub fn build(shader: &'a Shader, report: &mut Reporter) -> RegisterTable<'a> {
        let mut decls = Vec::new();
        let mut num_immediates = 0;
        let mut first_instruction: Option<usize> = None;
        for (stmt, s) in shader.statements.iter().enumerate() {
            match s {
                Statement::Instruction(_) => {
                    first_instruction.get_or_insert(stmt);
                }
                Statement::Declaration(d) => {
                    if let Some(first) = first_instruction {
                        report
                            .error(
                                Site::stmt(stmt),
                                "declaration after the first instruction",
                                "declarations must come before the instructions",
                            )
                            .notes
                            .push("move it above the first instruction".into());
                        report.also(Site::stmt(first), "the first instruction");
                    }
                    check_declaration(d, Site::stmt(stmt), report);
                    decls.push((stmt, d));
                }
                Statement::Immediate(imm) => {
                    if let Some(first) = first_instruction {
                        report.error(
                            Site::stmt(stmt),
                            "immediate after the first instruction",
                            "immediates must come before the instructions",
                        );
                        report.also(Site::stmt(first), "the first instruction");
                    }
                    let n = imm.words.len();
                    if n == 0 || n > 4 {
                        report.error(
                            Site::stmt(stmt),
                            format!("an immediate holds 1 to 4 words, this one has {n}"),
                            "wrong number of values",
                        );
                    } else if imm.ty.is_64bit() && n % 2 != 0 {
                        report.error(
                            Site::stmt(stmt),
                            format!(
                                "a {} immediate needs two words per value, this one has {n}",
                                imm.ty
                            ),
                            "odd number of words",
                        );
                    }
                    num_immediates += 1;
                }
                Statement::Property(_) => {}
            }
        }
        let input_vertices = match shader.processor {
            Processor::Geometry => shader
                .property(PropertyName::GsInputPrimitive)
                .and_then(Primitive::from_u32)
                .map(Primitive::vertices_per_primitive)
                .filter(|&n| n > 0),
            Processor::TessCtrl | Processor::TessEval => Some(32),
            _ => None,
        };
        let output_vertices = match shader.processor {
            Processor::TessCtrl => shader
                .property(PropertyName::TcsVerticesOut)
                .filter(|&n| n > 0),
            _ => None,
        };
        let mut by_file: Vec<Vec<&Declaration>> = vec![Vec::new(); File::ALL.len()];
        for &(_, d) in &decls {
            by_file[d.file as usize].push(d);
        }
        let table = RegisterTable {
            processor: shader.processor,
            decls,
            by_file,
            num_immediates,
            input_vertices,
            output_vertices,
            memory_warned: Default::default(),
        };
        table.check_overlaps(report);
        table.check_array_ids(report);
        table
    }

    /// True for the files declared by attribute index and used with a vertex
    /// index: GS/TCS/TES inputs and TCS outputs.
    fn is_per_vertex(&self, file: File) -> bool {
        match file {
            File::Input => matches!(
                self.processor,
                Processor::Geometry | Processor::TessCtrl | Processor::TessEval
            ),
            File::Output => self.processor == Processor::TessCtrl,
            _ => false,
        }
    }

    /// The 2-D key a declaration is filed under.
    fn dimension_key(&self, d: &Declaration) -> Option<u32> {
        if self.is_per_vertex(d.file) {
            None
        } else {
            d.dimension
        }
    }

    fn check_overlaps(&self, report: &mut Reporter) {
        let mut sorted: Vec<&(usize, &Declaration)> = self
            .decls
            .iter()
            .filter(|(_, d)| d.first <= d.last && d.file != File::Null)
            .collect();
        sorted.sort_by_key(|(stmt, d)| (d.file, self.dimension_key(d), d.first, *stmt));
        // Running (file, dim, furthest last, its statement, its declaration)
        // over the sorted list.
        let mut reach: Option<(File, Option<u32>, u32, usize, &Declaration)> = None;
        for &&(stmt, d) in &sorted {
            let key = (d.file, self.dimension_key(d));
            if let Some((file, dim, last, prev, earlier)) = reach
                && (file, dim) == key
                && d.first <= last
            {
                if splits_one_register(earlier, d) {
                    continue;
                }
                let dup = register_name(
                    d.file,
                    d.dimension.map(|n| Index::direct(n as i32)).as_ref(),
                    &Index::direct(d.first as i32),
                );
                report
                    .error(
                        Site::stmt(stmt),
                        format!("{dup} is declared more than once"),
                        format!("{} overlaps an earlier declaration", range_name(d)),
                    )
                    .notes
                    .push("each register may be declared once".into());
                report.also(Site::stmt(prev), "declared here before");
                if d.last > last {
                    reach = Some((d.file, key.1, d.last, stmt, d));
                }
                continue;
            }
            reach = Some((d.file, key.1, d.last, stmt, d));
        }
    }

    fn check_array_ids(&self, report: &mut Reporter) {
        let mut seen: Vec<(File, u32, usize)> = Vec::new();
        for &(stmt, d) in &self.decls {
            let Some(id) = d.array_id else { continue };
            if id == 0 {
                report.error(
                    Site::stmt(stmt),
                    "ARRAY ids start at 1 (0 means no array)",
                    "ARRAY(0)",
                );
                continue;
            }
            if let Some(&(_, _, prev)) = seen.iter().find(|(f, i, _)| *f == d.file && *i == id) {
                report.error(
                    Site::stmt(stmt),
                    format!("ARRAY({id}) of {} is declared twice", d.file),
                    "a second array with this id",
                );
                report.also(Site::stmt(prev), "first declared here");
                continue;
            }
            seen.push((d.file, id, stmt));
        }
    }

    fn file_decls(&self, file: File) -> impl Iterator<Item = &'a Declaration> + '_ {
        self.by_file[file as usize].iter().copied()
    }

    fn note_ranges(&self, file: File) -> String {
        let ranges: Vec<String> = self.file_decls(file).map(range_name).collect();
        if ranges.is_empty() {
            return format!("no {file} register is declared");
        }
        let more = ranges.len().saturating_sub(RANGES_IN_NOTE);
        let mut s = format!(
            "declared: {}",
            ranges
                .iter()
                .take(RANGES_IN_NOTE)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
        if more > 0 {
            s.push_str(&format!(" and {more} more"));
        }
        s
    }

    /// The target `DCL SVIEW[index], TARGET` declares, if it is declared so.
    pub fn sampler_view_target(&self, index: i64) -> Option<crate::enums::TextureTarget> {
        let views = self.by_file.get(File::SamplerView as usize)?;
        let decl = views.iter().find(|d| d.contains(index))?;
        decl.sampler_view.as_ref().map(|v| v.target)
    }

    /// Checks that the register an operand names exists: declared (or, for
    /// IMM, defined), inside range, with declared 2-D index, ARRAY id and
    /// indirect address registers.
    pub fn check_register(&self, reg: &Register, site: Site, report: &mut Reporter) {
        let name = || register_name(reg.file, reg.dimension.as_ref(), &reg.index);
        for index in std::iter::once(&reg.index).chain(reg.dimension.as_ref()) {
            if let Some(addr) = &index.indirect {
                self.check_address(addr, site, report);
            }
        }
        match reg.file {
            File::Null => {}
            File::Immediate => self.check_immediate(reg, site, report),
            file if self.is_per_vertex(file) => {
                self.check_index(reg, site, report);
                if let Some(Index {
                    offset,
                    indirect: None,
                }) = reg.dimension
                {
                    let vertices = if file == File::Input {
                        self.input_vertices
                    } else {
                        self.output_vertices
                    };
                    if let Some(n) = vertices
                        && (offset < 0 || offset as u32 >= n)
                    {
                        report
                            .error(
                                site,
                                format!("{}: vertex index {offset} is out of range", name()),
                                format!("this {} shader has {n} vertices", self.processor),
                            )
                            .notes
                            .push(format!("vertex indices go from 0 to {}", n - 1));
                    }
                }
            }
            file => {
                if reg.dimension.is_some() && self.candidates(reg).next().is_none() {
                    let d = reg.dimension.map_or(0, |d| d.offset);
                    report
                        .error(
                            site,
                            format!("{}: no {file}[{d}][..] register is declared", name()),
                            "undeclared 2-D index",
                        )
                        .notes
                        .push(self.note_ranges(file));
                    return;
                }
                self.check_index(reg, site, report);
            }
        }
    }

    /// The declarations that may hold `reg`: those of its file whose 2-D
    /// index matches (a missing 2-D index counts as 0; per-vertex files and
    /// indirect 2-D indices match every declaration of the file).
    fn candidates<'s>(&'s self, reg: &'s Register) -> impl Iterator<Item = &'a Declaration> + 's {
        let per_vertex = self.is_per_vertex(reg.file);
        self.file_decls(reg.file).filter(move |d| {
            per_vertex
                || match &reg.dimension {
                    Some(Index {
                        offset,
                        indirect: None,
                    }) => d.dimension.unwrap_or(0) as i64 == *offset as i64,
                    Some(_) => true,
                    None => d.dimension.unwrap_or(0) == 0,
                }
        })
    }

    /// The first-level index against the declarations that may hold it.
    fn check_index(&self, reg: &Register, site: Site, report: &mut Reporter) {
        let file = reg.file;
        let name = || register_name(file, reg.dimension.as_ref(), &reg.index);
        let none_declared = self.candidates(reg).next().is_none();
        match &reg.index.indirect {
            None => {
                let i = reg.index.offset as i64;
                if self.candidates(reg).any(|d| d.contains(i)) {
                    return;
                }
                let name = name();
                if file == File::Memory && !none_declared {
                    let mut warned = self.memory_warned.borrow_mut();
                    if warned.contains(&reg.index.offset) {
                        return;
                    }
                    warned.push(reg.index.offset);
                    report
                        .warning(
                            site,
                            format!("{name} is not declared"),
                            "another MEMORY register is declared",
                        )
                        .notes
                        .push(self.note_ranges(file));
                    return;
                }
                let label = if none_declared {
                    format!("no {file} register is declared")
                } else {
                    "outside every declared range".to_string()
                };
                report
                    .error(site, format!("{name} is not declared"), label)
                    .notes
                    .push(self.note_ranges(file));
            }
            Some(addr) => {
                let name = name();
                if none_declared {
                    report.error(
                        site,
                        format!(
                            "{name}: indirect access to {file}, but no {file} register is declared"
                        ),
                        "nothing to index",
                    );
                    return;
                }
                if addr.array_id == 0 {
                    return;
                }
                let array = self
                    .file_decls(file)
                    .find(|d| d.array_id == Some(addr.array_id));
                match array {
                    None => {
                        let ids: Vec<String> = self
                            .file_decls(file)
                            .filter_map(|d| d.array_id)
                            .map(|id| format!("ARRAY({id})"))
                            .collect();
                        let note = if ids.is_empty() {
                            format!("no {file} array is declared")
                        } else {
                            format!("declared {file} arrays: {}", ids.join(", "))
                        };
                        report
                            .error(
                                site,
                                format!(
                                    "{name}: ARRAY({}) of {file} is not declared",
                                    addr.array_id
                                ),
                                "unknown array id",
                            )
                            .notes
                            .push(note);
                    }
                    Some(d) if !d.contains(reg.index.offset as i64) => {
                        report
                            .warning(
                                site,
                                format!(
                                    "{name}: the constant part {} lies outside ARRAY({}), {}",
                                    reg.index.offset,
                                    addr.array_id,
                                    range_name(d)
                                ),
                                "offset outside the array",
                            )
                            .notes
                            .push(
                                "the offset of an array access counts from register 0 of the file"
                                    .into(),
                            );
                    }
                    Some(_) => {}
                }
            }
        }
    }

    fn check_immediate(&self, reg: &Register, site: Site, report: &mut Reporter) {
        let name = register_name(reg.file, reg.dimension.as_ref(), &reg.index);
        if reg.dimension.is_some() {
            report.error(
                site,
                format!("{name}: immediates have no 2-D index"),
                "unexpected second bracket",
            );
        }
        let n = self.num_immediates;
        match reg.index.indirect {
            None => {
                let i = reg.index.offset;
                if i < 0 || i as usize >= n {
                    let have = match n {
                        0 => "the shader has no immediates".to_string(),
                        1 => "the shader has 1 immediate, IMM[0]".to_string(),
                        n => format!("the shader has {n} immediates, IMM[0] to IMM[{}]", n - 1),
                    };
                    report.error(site, format!("{name} does not exist"), have);
                }
            }
            Some(_) if n == 0 => {
                report.error(
                    site,
                    format!("{name}: indirect access to IMM, but the shader has no immediates"),
                    "nothing to index",
                );
            }
            Some(_) => {}
        }
    }

    /// An indirect address register must be a declared value register.
    fn check_address(&self, addr: &IndirectAddr, site: Site, report: &mut Reporter) {
        if !is_value_file(addr.file) {
            report.error(
                site,
                format!(
                    "{}[{}] cannot hold an address: indirect indices are read from ADDR, TEMP or another value register",
                    addr.file, addr.index
                ),
                "not a value register",
            );
            return;
        }
        let reg = Register::new(addr.file, addr.index);
        self.check_register(&reg, site, report);
    }
}

/// Checks one declaration on its own.
fn check_declaration(d: &Declaration, site: Site, report: &mut Reporter) {
    match d.file {
        File::Null => {
            report.error(
                site,
                "the NULL file cannot be declared",
                "NULL is only a destination",
            );
        }
        File::Immediate => {
            report.error(
                site,
                "IMM registers are defined by IMM statements, not declared",
                "DCL of IMM",
            );
        }
        _ => {}
    }
    if d.first > d.last {
        report.error(
            site,
            format!(
                "empty range {}[{}..{}]: the first index is above the last",
                d.file, d.first, d.last
            ),
            "write the lower index first",
        );
    }
    let machine_file = matches!(
        d.file,
        File::Temp | File::Input | File::Output | File::Address | File::SystemValue
    );
    if machine_file && d.last >= super::MAX_FILE_ENTRIES {
        report.warning(
            site,
            format!(
                "{}[{}..{}] needs {} entries of {}: the machine runs at most {} entries of a register file, so it will not run this shader",
                d.file,
                d.first,
                d.last,
                d.last as u64 + 1,
                d.file,
                super::MAX_FILE_ENTRIES
            ),
            "too many entries to run",
        );
    }
}
