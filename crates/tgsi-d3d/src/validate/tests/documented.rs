//! The constraints of single reference pages: double-precision masks and
//! swizzles, store prefix masks, `swapc`, `sync`, `case`, one-component
//! operands and `null` destinations.

use super::*;

fn doubles(body: Vec<Instruction>) -> Program {
    ps_decls(
        vec![dcl_flags(
            GlobalFlags::ENABLE_DOUBLE_PRECISION_FLOAT_OPS
                | GlobalFlags::ENABLE_11_1_DOUBLE_EXTENSIONS,
        )],
        body,
    )
}

#[test]
fn dmovc_masks_and_swizzles_follow_its_reference_page() {
    let dmovc = |d: &str, c: &str, a: &str, b: &str| {
        inst(Opcode::Dmovc, vec![r(0, d), rs(1, c), rs(2, a), rs(3, b)])
    };
    clean(&doubles(vec![
        dmovc("xy", "xxxx", "xyzw", "zwxy"),
        dmovc("zw", "yzxw", "xyxy", "zwzw"),
        dmovc("xyzw", "x", "xyzw", "xyzw"),
    ]));
    let d = expect(
        &doubles(vec![dmovc("xyz", "xxxx", "xyzw", "xyzw")]),
        "`dmovc` writes doubles: the valid masks are .xy, .zw and .xyzw, found `.xyz`",
        At::Op(3, 0),
    );
    assert_eq!(
        d.primary.as_ref().map(|p| p.message.as_str()),
        Some("expected .xy, .zw or .xyzw")
    );
    expect(
        &doubles(vec![dmovc("y", "xxxx", "xyzw", "xyzw")]),
        "found `.y`",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![dmovc("xy", "xxxx", "xxyy", "xyzw")]),
        "`dmovc` reads doubles: the valid swizzles are .xyzw, .xyxy, .zwxy and .zwzw, found `r2.xxyy`",
        At::Op(3, 2),
    );
    expect(
        &doubles(vec![dmovc("xy", "xxxx", "xyzw", "yzwx")]),
        "found `r3.yzwx`",
        At::Op(3, 3),
    );
}

#[test]
fn double_comparisons_and_conversions_write_one_or_two_components() {
    let two = |op: Opcode, d: &str| inst(op, vec![r(0, d), rs(1, "xyzw"), rs(2, "zwzw")]);
    clean(&doubles(vec![
        two(Opcode::Deq, "z"),
        two(Opcode::Dlt, "xw"),
        two(Opcode::Dne, "y"),
    ]));
    expect(
        &doubles(vec![two(Opcode::Dge, "xyz")]),
        "`dge` writes one 32-bit result per double: expected one or two components, found `.xyz`",
        At::Op(3, 0),
    );
    let conv = |op: Opcode, d: &str, s: &str| inst(op, vec![r(0, d), rs(1, s)]);
    clean(&doubles(vec![
        conv(Opcode::Dtof, "xy", "xyzw"),
        conv(Opcode::Dtoi, "w", "zwzw"),
        conv(Opcode::Dtou, "yz", "xyxy"),
    ]));
    expect(
        &doubles(vec![conv(Opcode::Dtof, "xyzw", "xyzw")]),
        "`dtof` writes one 32-bit result per double",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![conv(Opcode::Dtoi, "x", "x")]),
        "`dtoi` reads doubles",
        At::Op(3, 1),
    );
    // 32-bit → double: a double destination, any 32-bit swizzle
    clean(&doubles(vec![
        conv(Opcode::Ftod, "zw", "yyyy"),
        conv(Opcode::Itod, "xyzw", "xy"),
        conv(Opcode::Utod, "xy", "w"),
    ]));
    expect(
        &doubles(vec![conv(Opcode::Utod, "xyz", "xy")]),
        "`utod` writes doubles",
        At::Op(3, 0),
    );
    expect(
        &doubles(vec![conv(Opcode::Ftod, "x", "x")]),
        "`ftod` writes doubles",
        At::Op(3, 0),
    );
}

#[test]
fn every_double_alu_op_uses_pairs() {
    for op in [
        Opcode::Dadd,
        Opcode::Dmul,
        Opcode::Dmax,
        Opcode::Dmin,
        Opcode::Ddiv,
    ] {
        let p = doubles(vec![inst(
            op,
            vec![r(0, "xy"), rs(1, "xyzw"), rs(2, "zyxw")],
        )]);
        expect(&p, "reads doubles", At::Op(3, 2));
    }
    let p = doubles(vec![inst(
        Opcode::Dfma,
        vec![r(0, "xw"), rs(1, "xyzw"), rs(2, "xyzw"), rs(3, "xyzw")],
    )]);
    expect(&p, "`dfma` writes doubles", At::Op(3, 0));
    let p = doubles(vec![inst(Opcode::Drcp, vec![r(0, "zw"), rs(1, "y")])]);
    expect(&p, "`drcp` reads doubles", At::Op(3, 1));
    let p = doubles(vec![inst(
        Opcode::Dmov,
        vec![r(0, "xyzw"), Operand::imm64(&[0x4012_0000_0000_0000, 0])],
    )]);
    clean(&p);
}

#[test]
fn stores_write_a_prefix_of_components() {
    let store = |m: &str| inst(Opcode::StoreRaw, vec![u(0, m), lit(&[0]), rs(0, "xyzw")]);
    clean(&cs(
        vec![dcl_uav_raw(0)],
        vec![store("x"), store("xy"), store("xyz"), store("xyzw")],
    ));
    expect(
        &cs(vec![dcl_uav_raw(0)], vec![store("xz")]),
        "`store_raw` writes a prefix of components: expected the mask .x, .xy, .xyz or .xyzw, found `.xz`",
        At::Op(3, 0),
    );
    let store = inst(
        Opcode::StoreStructured,
        vec![u(0, "yz"), lit(&[0]), lit(&[0]), rs(0, "xyzw")],
    );
    expect(
        &cs(vec![dcl_uav_structured(0, 16)], vec![store]),
        "`store_structured` writes a prefix of components",
        At::Op(3, 0),
    );
}

#[test]
fn swapc_writes_two_different_registers() {
    let swapc = |a: Operand, b: Operand| {
        inst(
            Opcode::Swapc,
            vec![a, b, rs(0, "xyzw"), rs(1, "xyzw"), rs(2, "xyzw")],
        )
    };
    clean(&ps(vec![swapc(r(0, "xy"), r(1, "zw"))]));
    expect(
        &ps(vec![swapc(null(), r(1, "xy"))]),
        "`swapc` writes both destinations; `null` is not allowed",
        At::Op(2, 0),
    );
    let d = expect(
        &ps(vec![swapc(r(1, "x"), r(1, "y"))]),
        "`swapc` destinations must be different registers, both are `r1`",
        At::Op(2, 1),
    );
    assert_eq!(d.secondary[0].span, span_of(At::Op(2, 0)));
}

#[test]
fn sync_flags_follow_the_stage() {
    let sync = |f: SyncFlags| with_controls(simple(Opcode::Sync), |c| c.sync = f);
    clean(&cs(
        vec![],
        vec![sync(
            SyncFlags::THREAD_GROUP_SHARED_MEMORY | SyncFlags::THREADS_IN_GROUP,
        )],
    ));
    clean(&ps(vec![sync(SyncFlags::UAV_MEMORY_GLOBAL)]));
    expect(
        &ps(vec![sync(SyncFlags::THREAD_GROUP_SHARED_MEMORY)]),
        "only `sync_uglobal` is allowed in a pixel shader",
        At::Mn(2),
    );
    expect(
        &cs(vec![], vec![sync(SyncFlags::THREADS_IN_GROUP)]),
        "a compute-shader `sync` needs a fence",
        At::Mn(2),
    );
    expect(
        &cs(
            vec![],
            vec![sync(
                SyncFlags::UAV_MEMORY_GLOBAL | SyncFlags::UAV_MEMORY_GROUP,
            )],
        ),
        "both `_uglobal` and `_ugroup`",
        At::Mn(2),
    );
}

#[test]
fn case_takes_a_literal() {
    let p = ps(vec![
        inst(Opcode::Switch, vec![rs(0, "x")]),
        inst(Opcode::Case, vec![rs(1, "x")]),
        simple(Opcode::Break),
        simple(Opcode::EndSwitch),
    ]);
    expect(
        &p,
        "`case` takes a 32-bit literal `l(n)`, found `r1.x`",
        At::Op(3, 0),
    );
}

#[test]
fn one_component_operands_of_the_table() {
    let decls = vec![dcl_uav_raw(0)];
    let atomic = inst(Opcode::AtomicIadd, vec![u(0, "x"), lit(&[0]), rs(0, "xy")]);
    expect(
        &cs(decls.clone(), vec![atomic]),
        "operand 2 of `atomic_iadd` must select one component",
        At::Op(3, 2),
    );
    let imm = inst(
        Opcode::ImmAtomicIadd,
        vec![r(0, "xy"), u(0, "x"), lit(&[0]), rs(0, "x")],
    );
    expect(
        &cs(decls, vec![imm]),
        "operand 0 of `imm_atomic_iadd` writes one component, found the mask `.xy`",
        At::Op(3, 0),
    );
}

#[test]
fn null_stands_for_one_of_two_results() {
    clean(&ps(vec![inst(
        Opcode::Sincos,
        vec![null(), r(0, "x"), rs(1, "x")],
    )]));
    clean(&ps(vec![inst(
        Opcode::Imul,
        vec![null(), r(0, "x"), rs(1, "x"), rs(2, "x")],
    )]));
    clean(&ps(vec![inst(
        Opcode::Udiv,
        vec![r(0, "x"), null(), rs(1, "x"), rs(2, "x")],
    )]));
    let p = ps(vec![inst(
        Opcode::Add,
        vec![null(), rs(0, "x"), rs(1, "x")],
    )]);
    expect(
        &p,
        "`add` has one result; `null` only stands for one of two results",
        At::Op(2, 0),
    );
}
