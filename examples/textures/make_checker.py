#!/usr/bin/env python3
"""Writes checker.png beside this script: a 64x64 RGBA8 texture, 8x8-texel
checker cells whose colours run along x and y (so filtering and wrapping show).
Pure Python (zlib only); the output is byte-for-byte deterministic."""
import os
import struct
import zlib

W = H = 64


def texel(x, y):
    if ((x >> 3) ^ (y >> 3)) & 1:
        return (255 - 2 * x, 150 + y, 60 + 2 * x + y, 255)
    return (30 + x, 20 + y // 2, 90 + 2 * y, 255)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


def main():
    rows = b"".join(
        b"\x00" + bytes(c for x in range(W) for c in texel(x, y)) for y in range(H)
    )
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 6, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "checker.png")
    with open(out, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
