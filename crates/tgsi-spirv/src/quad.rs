//! The vertex shader of a full-target quad (`draw quad` on a Vulkan
//! device): one triangle that covers the `width` × `height` target (window
//! corners (0, 0), (2W, 0), (0, 2H); depth 0.5, w 1), whose outputs give
//! each varying the plane the machine gives it — channel c at window point
//! (x, y) is `p[c][0] + p[c][1] x + p[c][2] y`, exact at the vertices and
//! linear between them — and zeros to every other varying the fragment
//! shader reads.

use super::Error;
use super::io::varying_location;
use rspirv::dr::{Builder, Operand};
use rspirv::spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionModel, FunctionControl, MemoryModel,
    StorageClass, Word,
};
use tgsi_ir::enums::{File, SemanticName};
use tgsi_ir::ir::Shader;

/// A varying of the quad: semantic, index and one plane per channel.
pub type QuadVarying = (SemanticName, u32, [[f32; 3]; 4]);

/// The quad's vertex shader for `fragment` on a `width` × `height` target.
pub fn quad_vertex_shader(
    fragment: &Shader,
    width: u32,
    height: u32,
    varyings: &[QuadVarying],
) -> Result<Vec<u32>, Error> {
    let corners = [
        [0.0f32, 0.0],
        [2.0 * width as f32, 0.0],
        [0.0, 2.0 * height as f32],
    ];
    // the fragment shader's varying inputs, by location
    let mut locations: Vec<(u32, [[f32; 4]; 3])> = Vec::new();
    for d in fragment.declarations().filter(|d| d.file == File::Input) {
        let Some(sem) = d.semantic else { continue };
        for n in 0..=(d.last - d.first) {
            let k = sem.index + n;
            let Some(loc) = varying_location(sem.name, k) else {
                continue;
            };
            let plane = varyings
                .iter()
                .find(|(s, i, _)| *s == sem.name && *i == k)
                .map(|v| v.2);
            let at = |c: usize, [x, y]: [f32; 2]| {
                plane.map_or(0.0, |p| p[c][0] + p[c][1] * x + p[c][2] * y)
            };
            let values = corners.map(|xy| [at(0, xy), at(1, xy), at(2, xy), at(3, xy)]);
            if !locations.iter().any(|(l, _)| *l == loc) {
                locations.push((loc, values));
            }
        }
    }
    let mut b = Builder::new();
    b.set_version(1, 5);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let (f32_, i32_, u32_) = (b.type_float(32, None), b.type_int(32, 1), b.type_int(32, 0));
    let f4 = b.type_vector(f32_, 4);
    let three = b.constant_bit32(u32_, 3);
    let arr = b.type_array(f4, three);
    let fp_arr = b.type_pointer(None, StorageClass::Function, arr);
    let fp_f4 = b.type_pointer(None, StorageClass::Function, f4);
    let out_f4 = b.type_pointer(None, StorageClass::Output, f4);
    let in_i32 = b.type_pointer(None, StorageClass::Input, i32_);
    let mut interface = Vec::new();
    let vertex_index = b.variable(in_i32, None, StorageClass::Input, None);
    b.decorate(
        vertex_index,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::VertexIndex)],
    );
    interface.push(vertex_index);
    let position = b.variable(out_f4, None, StorageClass::Output, None);
    b.decorate(
        position,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::Position)],
    );
    interface.push(position);
    let vec4 = |b: &mut Builder, v: [f32; 4]| -> Word {
        let c = v.map(|x| b.constant_bit32(f32_, x.to_bits()));
        b.constant_composite(f4, c)
    };
    let clip = [
        [-1.0, -1.0, 0.5, 1.0],
        [3.0, -1.0, 0.5, 1.0],
        [-1.0, 3.0, 0.5, 1.0],
    ];
    let mut tables = vec![(position, clip.map(|v| vec4(&mut b, v)))];
    for (loc, values) in &locations {
        let var = b.variable(out_f4, None, StorageClass::Output, None);
        b.decorate(var, Decoration::Location, [Operand::LiteralBit32(*loc)]);
        interface.push(var);
        tables.push((var, values.map(|v| vec4(&mut b, v))));
    }
    let tables: Vec<(Word, Word)> = tables
        .into_iter()
        .map(|(var, v)| (var, b.constant_composite(arr, v)))
        .collect();
    let fn_ty = b.type_function(void, []);
    let fail = |e: rspirv::dr::Error| Error::general(e.to_string());
    let main = b
        .begin_function(void, None, FunctionControl::NONE, fn_ty)
        .map_err(fail)?;
    b.begin_block(None).map_err(fail)?;
    let locals: Vec<Word> = tables
        .iter()
        .map(|_| b.variable(fp_arr, None, StorageClass::Function, None))
        .collect();
    let i = b.load(i32_, None, vertex_index, None, []).map_err(fail)?;
    for ((var, table), local) in tables.iter().zip(&locals) {
        b.store(*local, *table, None, []).map_err(fail)?;
        let p = b.access_chain(fp_f4, None, *local, [i]).map_err(fail)?;
        let v = b.load(f4, None, p, None, []).map_err(fail)?;
        b.store(*var, v, None, []).map_err(fail)?;
    }
    b.ret().map_err(fail)?;
    b.end_function().map_err(fail)?;
    b.entry_point(ExecutionModel::Vertex, main, "main", interface);
    use rspirv::binary::Assemble;
    Ok(b.module().assemble())
}
