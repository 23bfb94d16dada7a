//! Geometry shaders: the input primitive's vertices (`IN[v][r]`, one array
//! per varying, copied into the `IN` register array at v × registers + r),
//! the execution modes of the `GS_*` properties, and EMIT / ENDPRIM, which
//! copy the `OUT` registers to the outputs and emit the vertex (on the
//! stream of their operand) or end the strip.

use super::Error;
use super::module::Translator;
use rspirv::spirv::{Capability, ExecutionMode, Word};
use tgsi_ir::enums::PropertyName;
use tgsi_ir::ir::{Instruction, Shader};
use tgsi_ir::opcode::Opcode;

/// The `PIPE_PRIM_*` numbers of `GS_INPUT_PRIMITIVE` and
/// `GS_OUTPUT_PRIMITIVE`.
const POINTS: u32 = 0;
const LINES: u32 = 1;
const LINE_STRIP: u32 = 3;
const TRIANGLES: u32 = 4;
const TRIANGLE_STRIP: u32 = 5;
const LINES_ADJACENCY: u32 = 10;
const TRIANGLES_ADJACENCY: u32 = 12;

fn property(shader: &Shader, name: PropertyName) -> Option<u32> {
    shader
        .properties()
        .find(|p| p.name == name)
        .map(|p| p.value)
}

/// The vertices of a geometry shader's input primitive.
pub(crate) fn input_vertices(shader: &Shader) -> Result<u32, Error> {
    Ok(match property(shader, PropertyName::GsInputPrimitive) {
        Some(POINTS) => 1,
        Some(LINES) => 2,
        Some(TRIANGLES) => 3,
        Some(LINES_ADJACENCY) => 4,
        Some(TRIANGLES_ADJACENCY) => 6,
        Some(other) => {
            return Err(Error::general(format!(
                "GS_INPUT_PRIMITIVE {other} is not a geometry shader input primitive"
            )));
        }
        None => return Err(Error::general("a GEOM shader without GS_INPUT_PRIMITIVE")),
    })
}

impl Translator<'_> {
    /// The execution modes of a geometry shader's entry point `main`.
    pub(crate) fn geometry_modes(&mut self, main: Word) -> Result<(), Error> {
        let shader = self.shader;
        let input = match property(shader, PropertyName::GsInputPrimitive) {
            Some(POINTS) => ExecutionMode::InputPoints,
            Some(LINES) => ExecutionMode::InputLines,
            Some(TRIANGLES) => ExecutionMode::Triangles,
            Some(LINES_ADJACENCY) => ExecutionMode::InputLinesAdjacency,
            _ => ExecutionMode::InputTrianglesAdjacency,
        };
        let output = match property(shader, PropertyName::GsOutputPrimitive) {
            Some(POINTS) => ExecutionMode::OutputPoints,
            Some(LINE_STRIP) => ExecutionMode::OutputLineStrip,
            Some(TRIANGLE_STRIP) => ExecutionMode::OutputTriangleStrip,
            other => {
                return Err(Error::general(format!(
                    "GS_OUTPUT_PRIMITIVE {other:?} is not points, a line strip or a triangle strip"
                )));
            }
        };
        let vertices = property(shader, PropertyName::GsMaxOutputVertices).unwrap_or(1);
        let invocations = property(shader, PropertyName::GsInvocations)
            .unwrap_or(1)
            .max(1);
        self.b.execution_mode(main, input, []);
        self.b.execution_mode(main, output, []);
        self.b
            .execution_mode(main, ExecutionMode::OutputVertices, [vertices.max(1)]);
        self.b
            .execution_mode(main, ExecutionMode::Invocations, [invocations]);
        Ok(())
    }

    /// EMIT and ENDPRIM; `None` for every other opcode.
    pub(crate) fn geometry_instruction(&mut self, inst: &Instruction) -> Result<Option<()>, Error> {
        let op = inst.opcode;
        if !matches!(op, Opcode::EMIT | Opcode::ENDPRIM) {
            return Ok(None);
        }
        if self.shader.processor != tgsi_ir::enums::Processor::Geometry {
            return Err(self.fail(format!("{op} outside a geometry shader")));
        }
        // the stream: .x of the operand, an immediate
        let stream = match inst.src.first() {
            Some(s) if s.reg.file == tgsi_ir::enums::File::Immediate => self
                .shader
                .immediates()
                .nth(s.reg.index.offset.max(0) as usize)
                .and_then(|imm| imm.words.get(s.swizzle.0[0] as usize).copied())
                .unwrap_or(0),
            Some(_) => {
                return Err(self.fail(format!("{op} with a stream that is not an immediate")));
            }
            None => 0,
        };
        if stream != 0 {
            self.b.capability(Capability::GeometryStreams);
        }
        let s = self.c_u32(stream);
        if op == Opcode::EMIT {
            // vertices past GS_MAX_OUTPUT_VERTICES (over every stream) are
            // dropped, as the machine drops them (Vulkan leaves it undefined)
            let (count, max) = self.emit_count()?;
            let (u32_, bool_) = (self.t.u32, self.t.bool);
            let n = sp!(self, self.b.load(u32_, None, count, None, []))?;
            let room = sp!(self, self.b.u_less_than(bool_, None, n, max))?;
            self.when(room, None, |t| {
                t.copy_outputs()?;
                t.pass_primitive_id()?;
                let r = if stream == 0 {
                    t.b.emit_vertex()
                } else {
                    t.b.emit_stream_vertex(s)
                };
                r.map_err(|e| t.fail(e.to_string()))?;
                let one = t.c_u32(1);
                let next = sp!(t, t.b.i_add(u32_, None, n, one))?;
                sp!(t, t.b.store(count, next, None, []))?;
                Ok(None)
            })?;
        } else {
            let r = if stream == 0 {
                self.b.end_primitive()
            } else {
                self.b.end_stream_primitive(s)
            };
            r.map_err(|e| self.fail(e.to_string()))?;
        }
        Ok(Some(()))
    }

    /// The emitted-vertex counter (a function variable made in the entry
    /// block) and `GS_MAX_OUTPUT_VERTICES`.
    fn emit_count(&mut self) -> Result<(Word, Word), Error> {
        let max = property(self.shader, PropertyName::GsMaxOutputVertices).unwrap_or(1);
        let max = self.c_u32(max);
        let var = self
            .emitted
            .ok_or_else(|| self.fail("the emit counter is not declared"))?;
        Ok((var, max))
    }

    /// A geometry shader that writes no `PRIMID` passes its input
    /// primitive's on with each vertex (the fragment shader's `PRIMID` is
    /// that primitive's, as on the machine).
    fn pass_primitive_id(&mut self) -> Result<(), Error> {
        let Some((input, output)) = self.primitive_id_pass else {
            return Ok(());
        };
        let i32_ = self.t.i32;
        let v = sp!(self, self.b.load(i32_, None, input, None, []))?;
        sp!(self, self.b.store(output, v, None, []))?;
        Ok(())
    }
}
