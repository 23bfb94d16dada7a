#!/usr/bin/env bash
# Builds the OpenGL peers: peerbench.c and meshbench.c, linked against Debian's Mesa (EGL and
# OpenGL through libglvnd), so that llvmpipe and softpipe run the compute
# and fragment work of `tgsi bench` and its mesh scene (see peers/README.md).
#
#   peers/mesa-gl/build.sh           builds peers/build/peerbench and meshbench
#   TGSI_PEER_DIR=DIR ...            puts it there instead
#
# Installs the Debian packages it needs when they are missing (needs root).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${TGSI_PEER_DIR:-$here/../build}
mkdir -p "$out"
out=$(cd "$out" && pwd)
packages="libegl-mesa0 libgl1-mesa-dri libegl-dev libgl-dev libopengl-dev libpng-dev"
if ! dpkg -s $packages >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null
fi
gcc -O2 -Wall -Wextra -o "$out/peerbench" "$here/peerbench.c" -lEGL -lOpenGL
gcc -O2 -Wall -Wextra -o "$out/meshbench" "$here/meshbench.c" -lEGL -lOpenGL -lpng
echo "$out/peerbench"
echo "$out/meshbench"
