#!/usr/bin/env python3
"""Prints the --const options of the torus scene (examples/scene/README.md):
buffer 0 the model matrix, 1 the view matrix, 2 the projection matrix (rows,
right-handed, camera looking down -z; the projection maps view depth to
Direct3D's 0 <= z <= w), 3 the lights. Values are rounded to 6 decimals;
those printed numbers are the scene."""
import math

W, H = 512, 384
FOV_Y, NEAR, FAR = 38.0, 1.0, 10.0
EYE, TARGET, UP = (0.0, 2.4, 4.4), (0.0, -0.05, 0.0), (0.0, 1.0, 0.0)


def mul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def rot_x(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1]]


def rot_y(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [[c, 0, s, 0], [0, 1, 0, 0], [-s, 0, c, 0], [0, 0, 0, 1]]


def rot_z(deg):
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return [[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def norm(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def look_at(eye, target, up):
    f = norm(sub(target, eye))
    s = norm(cross(f, up))
    u = cross(s, f)
    return [s + [-dot(s, eye)], u + [-dot(u, eye)], [-x for x in f] + [dot(f, eye)], [0, 0, 0, 1]]


def perspective(fov_y, aspect, near, far):
    f = 1 / math.tan(math.radians(fov_y) / 2)
    return [[f / aspect, 0, 0, 0], [0, f, 0, 0],
            [0, 0, far / (near - far), near * far / (near - far)], [0, 0, -1, 0]]


model = mul(rot_y(-35), mul(rot_x(14), rot_z(-20)))
view = look_at(EYE, TARGET, UP)
proj = perspective(FOV_Y, W / H, NEAR, FAR)
key = norm([-0.5, 0.9, 0.55])  # towards the key light
fill = norm([0.8, -0.2, -0.6])  # towards the fill light (from behind right)
lights = [
    key + [0.0],
    list(EYE) + [1.0],
    [1.0, 0.92, 0.8, 48.0],  # key colour, shininess
    [0.05, 0.055, 0.07, 0.0],  # ambient
    [0.8, 0.78, 0.7, 0.0],  # specular colour
    fill + [0.0],
    [0.12, 0.2, 0.4, 0.0],  # fill colour
    [0.35, 0.45, 0.7, 3.0],  # rim colour, rim exponent
]


def fmt(v):
    s = f"{v:.6f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


for n, m in enumerate([model, view, proj, lights]):
    print(f"--const {n}=float:" + ",".join(fmt(x) for row in m for x in row))
