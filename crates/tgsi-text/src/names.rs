//! Name knowledge the assembler needs beyond the enum tables: "did you mean"
//! suggestions, and the constructs older TGSI had that Mesa 22.3 removed
//! (opcodes, register files), each with what to write instead.

/// Edit distance between two ASCII words, compared case-insensitively.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<u8> = a.bytes().map(|c| c.to_ascii_uppercase()).collect();
    let b: Vec<u8> = b.bytes().map(|c| c.to_ascii_uppercase()).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a likely typo.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if word.len() > 64 {
        return None;
    }
    let limit = (word.len() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// Opcodes of older TGSI that Mesa 22.3 no longer knows, with the replacement.
pub fn removed_opcode(name: &str) -> Option<&'static str> {
    const REMOVED: &[(&str, &str)] = &[
        (
            "ABS",
            "use `MOV` with an absolute-value source: `MOV dst, |src|`",
        ),
        (
            "SUB",
            "use `ADD` with a negated second source: `ADD dst, a, -b`",
        ),
        (
            "KIL",
            "use `KILL_IF src` (kill where any component is negative)",
        ),
        ("KILP", "use `KILL` (unconditional)"),
        (
            "XPD",
            "compute the cross product with `MUL` and `MAD` on swizzled sources",
        ),
        ("SCS", "use `COS` and `SIN`"),
        ("DPH", "use `DP4` with w set to 1, or `DP3` and `ADD`"),
        ("NRM", "use `DP3`, `RSQ` and `MUL`"),
        ("NRM4", "use `DP4`, `RSQ` and `MUL`"),
        ("RCC", "use `RCP`"),
        ("CND", "use `CMP` or `UCMP`"),
        ("CLAMP", "use `MAX` then `MIN`, or the `_SAT` suffix"),
        ("SWZ", "use `MOV` with a source swizzle"),
        ("SFL", "use `MOV` of 0"),
        ("STR", "use `MOV` of 1"),
        (
            "BRA",
            "use structured control flow (`IF`, `BGNLOOP`, `CAL`)",
        ),
        ("IFC", "use `IF` on a comparison result"),
        ("BREAKC", "use `IF` + `BRK`"),
        ("CALLNZ", "use `IF` + `CAL`"),
        ("PUSHA", "address-register stacks were removed"),
        ("POPA", "address-register stacks were removed"),
        (
            "EMIT_VERTEX",
            "use `EMIT` with a stream operand: `EMIT IMM[n].xxxx`",
        ),
        (
            "END_PRIMITIVE",
            "use `ENDPRIM` with a stream operand: `ENDPRIM IMM[n].xxxx`",
        ),
        ("MFENCE", "use `MEMBAR` with a flags operand"),
        ("LFENCE", "use `MEMBAR` with a flags operand"),
        ("SFENCE", "use `MEMBAR` with a flags operand"),
        ("NOISE1", "noise opcodes were removed"),
        ("NOISE2", "noise opcodes were removed"),
        ("NOISE3", "noise opcodes were removed"),
        ("NOISE4", "noise opcodes were removed"),
        ("SAD", "use `ABS`-free integer arithmetic (`IABS`, `UADD`)"),
        ("TXQ_LZ", "use `TXQ` with level 0"),
        ("LOAD_RES", "use `LOAD`"),
    ];
    REMOVED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, r)| *r)
}

/// Register files of older TGSI that Mesa 22.3 no longer knows, with the replacement.
pub fn removed_file(name: &str) -> Option<&'static str> {
    const REMOVED: &[(&str, &str)] = &[
        (
            "RES",
            "use `SVIEW` for sampled resources, `BUFFER` or `IMAGE` for memory resources",
        ),
        (
            "IMMX",
            "declare each immediate with an `IMM` statement and address them as `IMM[n]`",
        ),
        (
            "TEMPX",
            "declare `TEMP[a..b], ARRAY(n)` and address the array by index",
        ),
        (
            "PRED",
            "predicate registers were removed; use `IF` on a condition",
        ),
        ("RLOCAL", "declare work-group memory as `MEMORY[n], SHARED`"),
        ("RGLOBAL", "declare global memory as `MEMORY[n], GLOBAL`"),
        ("RPRIVATE", "declare private memory as `MEMORY[n], PRIVATE`"),
        ("RINPUT", "declare kernel inputs as `MEMORY[n], INPUT`"),
        (
            "LOOP",
            "the loop-counter file was removed; use a `TEMP` counter",
        ),
    ];
    REMOVED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, r)| *r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_nearest() {
        assert_eq!(edit_distance("MOV", "mov"), 0);
        assert_eq!(edit_distance("MOVE", "MOV"), 1);
        assert_eq!(nearest("POSITON", ["COLOR", "POSITION"]), Some("POSITION"));
        assert_eq!(nearest("QQQQQQ", ["COLOR", "POSITION"]), None);
    }

    #[test]
    fn removed_constructs() {
        assert!(removed_opcode("sub").unwrap().contains("ADD"));
        assert!(removed_file("RES").unwrap().contains("SVIEW"));
        assert_eq!(removed_opcode("MOV"), None);
    }
}
