#!/usr/bin/env bash
# Static throughput of one compiled function on several CPU models, by
# llvm-mca: the function's instructions as objdump lists them in a built
# binary, its jumps pointed at one label (llvm-mca treats the body as one
# straight block, so a function with branches is counted whole), then
# cycles per pass at full throughput for each model.
#
#   benches/mca.sh SYMBOL [BINARY]
#
# SYMBOL is a part of the function's mangled name, e.g.
# `_ZN9tgsi_exec4math4simd5tiles5cover` (the tile cover kernel); BINARY
# defaults to target/release-lto/tgsi (`cargo build --profile
# release-lto`). Needs objdump and llvm-mca-19 (Debian: binutils,
# llvm-19), whose models include Sapphire Rapids and Zen 4.
set -euo pipefail
symbol=${1:?usage: benches/mca.sh SYMBOL [BINARY]}
binary=${2:-target/release-lto/tgsi}
mca=${LLVM_MCA:-llvm-mca-19}
command -v "$mca" >/dev/null || { echo "$mca not found (apt-get install llvm-19, or set LLVM_MCA)" >&2; exit 2; }
body=$(mktemp)
listing=$(mktemp)
trap 'rm -f "$body" "$listing"' EXIT
objdump -d --no-show-raw-insn "$binary" >"$listing"
awk -v pat="$symbol" 'index($0, pat) && /^[0-9a-f]+ <.*>:$/ { if (seen++) exit; on = 1; next }
                          on && /^$/ { exit }
                          on' "$listing" |
    sed 's/^ *[0-9a-f]*:\t//; s/#.*//; s/<[^>]*>//' |
    { grep -v -e '^\s*$' -e 'int3' -e 'nop' || true; } |
    sed -E 's/^(j[a-z]+|call[a-z]*)[ \t]+.*/\1 .Lany/' |
    { echo ".Lany:"; cat; } >"$body"
count=$(($(wc -l <"$body") - 1))
if [ "$count" -le 0 ]; then
    echo "no function whose name contains $symbol in $binary" >&2
    exit 1
fi
echo "$symbol: $count instructions"
for cpu in sapphirerapids icelake-server znver4; do
    cycles=$("$mca" -mcpu="$cpu" -iterations=100 "$body" 2>/dev/null | awk '/Total Cycles/ { print $3 / 100 }')
    echo "  $cpu: ${cycles:-?} cycles per pass"
done
