#!/usr/bin/env bash
# Builds the `tgsi_exec` peer: Mesa's own TGSI text assembler and interpreter
# (src/gallium/auxiliary/tgsi of Mesa 22.3, as Debian 12 ships it, compiled
# unmodified) linked with this folder's quad runner (quad_runner.c) and a few
# stand-ins (standins.c) for Mesa pieces the interpreter does not need.
#
#   peers/mesa-tgsi/build.sh          builds peers/build/tgsi_run
#   MESA_SRC=DIR peers/mesa-tgsi/build.sh   uses an unpacked Mesa source tree
#   TGSI_PEER_DIR=DIR ...             puts the build (and the source) there
#
# The first run needs root: it adds Debian's source-package index (a copy of
# the machine's own debian.sources with `Types: deb-src`) and runs
# `apt-get source mesa`. Later runs reuse the unpacked source.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${TGSI_PEER_DIR:-$here/../build}
mkdir -p "$out"
out=$(cd "$out" && pwd)

if [[ -z ${MESA_SRC:-} ]]; then
    MESA_SRC=$(ls -d "$out"/src/mesa-*/ 2>/dev/null | head -n 1 || true)
fi
if [[ -z ${MESA_SRC:-} ]]; then
    if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/; then
        sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
            > /etc/apt/sources.list.d/tgsi-peer-src.sources
        apt-get update -qq
    fi
    command -v dpkg-source >/dev/null || apt-get install -y -qq dpkg-dev >/dev/null
    mkdir -p "$out/src"
    (cd "$out/src" && apt-get source -qq mesa >/dev/null)
    MESA_SRC=$(ls -d "$out"/src/mesa-*/ | head -n 1)
fi
mesa=${MESA_SRC%/}
echo "Mesa source: $mesa" >&2

obj="$out/obj-tgsi"
mkdir -p "$obj"
includes=(-I"$mesa/include" -I"$mesa/src" -I"$mesa/src/gallium/include"
          -I"$mesa/src/gallium/auxiliary" -I"$mesa/src/util")
defines=(-DHAVE_ENDIAN_H -DHAVE_STRUCT_TIMESPEC -DHAVE_TIMESPEC_GET -DHAVE_PTHREAD -DNDEBUG)
# Plain x86-64 and no contraction: Debian's own build never fuses MAD.
cflags=(${CFLAGS:--O2 -g -ffp-contract=off} -std=gnu11)

# util_format_description(), which tgsi_text and tgsi_dump use only for the
# names of image formats: a table of names made from the enum in p_format.h
# (Mesa generates its full format table with Python and Mako at build time).
python3 - "$mesa/src/gallium/include/pipe/p_format.h" > "$obj/format_names.c" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
body = text[text.index("enum pipe_format {"):]
body = body[:body.index("};")]
names = [n for n in re.findall(r"^\s*(PIPE_FORMAT_[A-Z0-9_]+)\s*[,=]", body, re.M)
         if n != "PIPE_FORMAT_COUNT"]
print('#include "util/format/u_format.h"')
print("static struct util_format_description table[PIPE_FORMAT_COUNT];")
print("static const char *const names[] = {")
for n in names:
    print(f'   [{n}] = "{n}",')
print("};")
print("const struct util_format_description *util_format_description(enum pipe_format f) {")
print("   if ((unsigned)f >= PIPE_FORMAT_COUNT) return NULL;")
print("   struct util_format_description *d = &table[f];")
print("   d->format = f;")
print('   d->name = (unsigned)f < sizeof(names) / sizeof(names[0]) && names[f] ? names[f] : "PIPE_FORMAT_???";')
print("   return d;")
print("}")
PY

sources=()
for f in tgsi_text tgsi_exec tgsi_parse tgsi_info tgsi_util tgsi_strings tgsi_dump \
         tgsi_iterate tgsi_build tgsi_sanity; do
    sources+=("$mesa/src/gallium/auxiliary/tgsi/$f.c")
done
sources+=("$mesa/src/util/u_debug.c" "$mesa/src/util/os_misc.c" "$mesa/src/util/half_float.c"
          "$mesa/src/util/softfloat.c" "$mesa/src/gallium/auxiliary/cso_cache/cso_hash.c"
          "$obj/format_names.c" "$here/standins.c" "$here/quad_runner.c")
for s in "${sources[@]}"; do
    gcc "${cflags[@]}" "${includes[@]}" "${defines[@]}" -c -o "$obj/$(basename "$s" .c).o" "$s"
done
gcc -o "$out/tgsi_run" "$obj"/*.o -lm
echo "$out/tgsi_run"
