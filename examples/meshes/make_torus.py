#!/usr/bin/env python3
"""Writes torus.obj: a torus around the y axis (major radius 1, minor 0.4),
64 x 32 segments, with texture coordinates (u around the ring, v around the
tube, the seam duplicated so the texture wraps once) and unit normals.
Faces are quads wound counter-clockwise seen from outside."""
import math

R, r, N, M = 1.0, 0.4, 64, 32
lines = ["# torus: major radius 1, minor radius 0.4, 64 x 32 segments (make_torus.py)"]
for i in range(N + 1):
    a = 2 * math.pi * i / N
    for j in range(M + 1):
        b = 2 * math.pi * j / M
        x = (R + r * math.cos(b)) * math.cos(a)
        z = (R + r * math.cos(b)) * math.sin(a)
        y = r * math.sin(b)
        lines.append(f"v {x:.6f} {y:.6f} {z:.6f}")
        lines.append(f"vt {i / N:.6f} {j / M:.6f}")
        lines.append(f"vn {math.cos(b) * math.cos(a):.6f} {math.sin(b):.6f} {math.cos(b) * math.sin(a):.6f}")
for i in range(N):
    for j in range(M):
        k = lambda ii, jj: ii * (M + 1) + jj + 1
        a, b, c, d = k(i, j), k(i + 1, j), k(i + 1, j + 1), k(i, j + 1)
        lines.append(f"f {a}/{a}/{a} {d}/{d}/{d} {c}/{c}/{c} {b}/{b}/{b}")
open("torus.obj", "w").write("\n".join(lines) + "\n")
