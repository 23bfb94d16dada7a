//! Wavefront OBJ meshes in: what `tgsi render --mesh` draws.
//!
//! Reads the geometry statements of the format: `v x y z [w]` positions
//! (a `w` divides; vertex colours after `z` are ignored), `vt u [v [w]]`
//! texture coordinates, `vn x y z` normals and `f` faces whose corners are
//! `v`, `v/vt`, `v//vn` or `v/vt/vn` (1-based, negative counts back from the
//! last element read so far). Polygons are split into triangle fans from
//! their first corner, keeping their winding. Grouping, material and
//! smoothing statements (`o`, `g`, `s`, `mtllib`, `usemtl`), lines and
//! points (`l`, `p`) and free-form statements are skipped; anything else is
//! an error. Every error names the line and column.
//!
//! The result is an indexed triangle list whose vertices are the distinct
//! (position, texcoord, normal) corner triples, in first-use order. A mesh
//! without normals gets smooth ones (the area-weighted sum of the face
//! normals of the triangles around each vertex, normalized); a corner
//! without a texture coordinate gets (0, 0).

/// Largest number of statements or face corners read (a hostile file stops
/// with an error instead of exhausting memory).
pub const MAX_ELEMENTS: usize = 1 << 24;

/// One vertex of the mesh as a shader receives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MeshVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub texcoord: [f32; 2],
}

/// An indexed triangle list.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mesh {
    pub vertices: Vec<MeshVertex>,
    /// Three indices into `vertices` per triangle, in the file's winding.
    pub indices: Vec<u32>,
}

/// A problem in an OBJ file, at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {message}")]
pub struct ObjError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl Mesh {
    /// The axis-aligned bounds of the positions: (min, max); zeros when empty.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in &self.vertices {
            for c in 0..3 {
                lo[c] = lo[c].min(v.position[c]);
                hi[c] = hi[c].max(v.position[c]);
            }
        }
        if self.vertices.is_empty() {
            ([0.0; 3], [0.0; 3])
        } else {
            (lo, hi)
        }
    }
}

/// A corner of a face: indices into the position, texcoord and normal lists.
type Corner = (usize, Option<usize>, Option<usize>);

/// Reads an OBJ file's text.
pub fn parse_obj(text: &str) -> Result<Mesh, ObjError> {
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut texcoords: Vec<[f32; 2]> = Vec::new();
    let mut normals: Vec<[f32; 3]> = Vec::new();
    let mut corners: Vec<Corner> = Vec::new();
    let mut statements = 0usize;
    for (n, raw) in text.lines().enumerate() {
        let line = n + 1;
        let content = raw.split('#').next().unwrap_or("");
        let mut words = Words::new(content, line);
        let Some((keyword, _)) = words.next() else {
            continue;
        };
        statements += 1;
        if statements > MAX_ELEMENTS || corners.len() > MAX_ELEMENTS {
            return Err(words.error_at(0, format!("more than {MAX_ELEMENTS} elements")));
        }
        match keyword {
            "v" => {
                let x = words.float("the x coordinate")?;
                let y = words.float("the y coordinate")?;
                let z = words.float("the z coordinate")?;
                // an optional w (or, in some exporters, three colour values)
                let rest: Vec<(&str, usize)> = words.by_ref().collect();
                let w = match rest.len() {
                    1 => Words::number(rest[0], line, "the w coordinate")?,
                    _ => 1.0,
                };
                if w == 0.0 {
                    return Err(ObjError {
                        line,
                        column: rest[0].1,
                        message: "a position with w = 0".into(),
                    });
                }
                positions.push([x / w, y / w, z / w]);
            }
            "vt" => {
                let u = words.float("the u coordinate")?;
                let v = words.optional_float("the v coordinate")?.unwrap_or(0.0);
                words.optional_float("the w coordinate")?;
                words.end()?;
                texcoords.push([u, v]);
            }
            "vn" => {
                let x = words.float("the x component")?;
                let y = words.float("the y component")?;
                let z = words.float("the z component")?;
                words.end()?;
                normals.push([x, y, z]);
            }
            "f" => {
                let mut face: Vec<Corner> = Vec::new();
                for (w, column) in words.by_ref() {
                    face.push(corner(
                        w,
                        line,
                        column,
                        [positions.len(), texcoords.len(), normals.len()],
                    )?);
                }
                if face.len() < 3 {
                    return Err(ObjError {
                        line,
                        column: content.len() + 1,
                        message: format!(
                            "a face needs at least 3 corners, this one has {}",
                            face.len()
                        ),
                    });
                }
                for k in 1..face.len() - 1 {
                    corners.extend([face[0], face[k], face[k + 1]]);
                }
            }
            "o" | "g" | "s" | "mtllib" | "usemtl" | "l" | "p" | "cstype" | "deg" | "curv"
            | "curv2" | "surf" | "parm" | "end" | "vp" | "mg" | "bevel" | "c_interp"
            | "d_interp" | "lod" | "shadow_obj" | "trace_obj" | "maplib" | "usemap" => {}
            other => {
                return Err(words.error_at(
                    0,
                    format!("unknown statement `{other}` (expected v, vt, vn, f, o, g, s, usemtl, mtllib)"),
                ));
            }
        }
    }
    Ok(build(&positions, &texcoords, &normals, &corners))
}

/// The distinct corners become vertices; missing normals are computed.
fn build(
    positions: &[[f32; 3]],
    texcoords: &[[f32; 2]],
    normals: &[[f32; 3]],
    corners: &[Corner],
) -> Mesh {
    let mut index_of: std::collections::HashMap<Corner, u32> = std::collections::HashMap::new();
    let mut mesh = Mesh::default();
    let mut missing_normal = Vec::new();
    for c in corners {
        let next = mesh.vertices.len() as u32;
        let k = *index_of.entry(*c).or_insert_with(|| {
            let (p, t, n) = *c;
            mesh.vertices.push(MeshVertex {
                position: positions[p],
                normal: n.map_or([0.0; 3], |n| normals[n]),
                texcoord: t.map_or([0.0; 2], |t| texcoords[t]),
            });
            missing_normal.push(n.is_none());
            next
        });
        mesh.indices.push(k);
    }
    if missing_normal.iter().any(|&m| m) {
        smooth_normals(&mut mesh, &missing_normal);
    }
    mesh
}

/// Area-weighted vertex normals for the vertices flagged in `missing`,
/// accumulated over the triangles by position (so corners that share a
/// position but not a texture coordinate get the same normal).
fn smooth_normals(mesh: &mut Mesh, missing: &[bool]) {
    let key = |p: [f32; 3]| p.map(f32::to_bits);
    let mut sums: std::collections::HashMap<[u32; 3], [f64; 3]> = std::collections::HashMap::new();
    for t in mesh.indices.chunks_exact(3) {
        let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.vertices[i as usize].position);
        let e1 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]].map(f64::from);
        let e2 = [c[0] - a[0], c[1] - a[1], c[2] - a[2]].map(f64::from);
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        for p in [a, b, c] {
            let s = sums.entry(key(p)).or_insert([0.0; 3]);
            for k in 0..3 {
                s[k] += n[k];
            }
        }
    }
    for (v, _) in mesh.vertices.iter_mut().zip(missing).filter(|(_, m)| **m) {
        let s = sums.get(&key(v.position)).copied().unwrap_or([0.0; 3]);
        let len = (s[0] * s[0] + s[1] * s[1] + s[2] * s[2]).sqrt();
        v.normal = if len > 0.0 {
            s.map(|x| (x / len) as f32)
        } else {
            [0.0, 0.0, 1.0]
        };
    }
}

/// One `v[/vt[/vn]]` corner; `counts` are the list lengths so far.
fn corner(word: &str, line: usize, column: usize, counts: [usize; 3]) -> Result<Corner, ObjError> {
    let parts: Vec<&str> = word.split('/').collect();
    if parts.len() > 3 {
        return Err(ObjError {
            line,
            column,
            message: format!("`{word}` is not a face corner (v, v/vt, v//vn or v/vt/vn)"),
        });
    }
    let names = ["position", "texture coordinate", "normal"];
    let mut out: [Option<usize>; 3] = [None; 3];
    for (k, part) in parts.iter().enumerate() {
        if part.is_empty() {
            if k == 0 {
                return Err(ObjError {
                    line,
                    column,
                    message: format!("`{word}` has no position index"),
                });
            }
            continue;
        }
        let i: i64 = part.parse().map_err(|_| ObjError {
            line,
            column,
            message: format!("`{part}` is not a {} index", names[k]),
        })?;
        let n = counts[k] as i64;
        let resolved = if i > 0 { i - 1 } else { n + i };
        if i == 0 || resolved < 0 || resolved >= n {
            return Err(ObjError {
                line,
                column,
                message: format!(
                    "{} index {i} is out of range: {n} {}s are defined so far",
                    names[k], names[k]
                ),
            });
        }
        out[k] = Some(resolved as usize);
    }
    let position = out[0].expect("checked above");
    Ok((position, out[1], out[2]))
}

/// The words of one line with their 1-based columns.
struct Words<'a> {
    iter: std::iter::Peekable<std::vec::IntoIter<(&'a str, usize)>>,
    line: usize,
    end_column: usize,
}

impl<'a> Words<'a> {
    fn new(content: &'a str, line: usize) -> Words<'a> {
        let mut words = Vec::new();
        let mut start = None;
        for (i, ch) in content
            .char_indices()
            .chain(std::iter::once((content.len(), ' ')))
        {
            if ch.is_whitespace() {
                if let Some(s) = start.take() {
                    words.push((&content[s..i], s + 1));
                }
            } else if start.is_none() {
                start = Some(i);
            }
        }
        Words {
            iter: words.into_iter().peekable(),
            line,
            end_column: content.trim_end().len() + 1,
        }
    }

    fn error_at(&self, column: usize, message: String) -> ObjError {
        ObjError {
            line: self.line,
            column: column.max(1),
            message,
        }
    }

    fn number((word, column): (&str, usize), line: usize, what: &str) -> Result<f32, ObjError> {
        word.parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| ObjError {
                line,
                column,
                message: format!("expected {what} (a finite number), found `{word}`"),
            })
    }

    fn float(&mut self, what: &str) -> Result<f32, ObjError> {
        match self.iter.next() {
            Some(w) => Words::number(w, self.line, what),
            None => Err(self.error_at(self.end_column, format!("expected {what}"))),
        }
    }

    fn optional_float(&mut self, what: &str) -> Result<Option<f32>, ObjError> {
        match self.iter.next() {
            Some(w) => Words::number(w, self.line, what).map(Some),
            None => Ok(None),
        }
    }

    fn end(&mut self) -> Result<(), ObjError> {
        match self.iter.next() {
            Some((w, column)) => Err(self.error_at(
                column,
                format!("unexpected `{w}` at the end of the statement"),
            )),
            None => Ok(()),
        }
    }
}

impl<'a> Iterator for Words<'a> {
    type Item = (&'a str, usize);
    fn next(&mut self) -> Option<Self::Item> {
        self.iter.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quad_becomes_two_triangles_with_shared_corners() {
        let m = parse_obj(
            "# a unit quad\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n\
             vn 0 0 1\nf 1/1/1 2/2/1 3/3/1 4/4/1\n",
        )
        .unwrap();
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.indices, vec![0, 1, 2, 0, 2, 3]);
        assert_eq!(m.vertices[2].texcoord, [1.0, 1.0]);
        assert_eq!(m.vertices[3].normal, [0.0, 0.0, 1.0]);
        assert_eq!(m.bounds(), ([0.0; 3], [1.0, 1.0, 0.0]));
    }

    #[test]
    fn negative_indices_count_back_and_w_divides() {
        let m = parse_obj("v 2 4 6 2\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n").unwrap();
        assert_eq!(m.vertices[0].position, [1.0, 2.0, 3.0]);
        assert_eq!(m.indices, vec![0, 1, 2]);
    }

    #[test]
    fn missing_normals_are_smooth_area_weighted() {
        // Two triangles folded at the x axis: one in the z = 0 plane (normal
        // +z, area 0.5), one in the y = 0 plane: (0,0,2)-(0,0,0) × (1,0,0)-(0,0,0)
        // = (0, 2, 0), facing +y (area 1).
        let m = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 2\nf 1 2 3\nf 1 4 2\n").unwrap();
        // The vertex only the first triangle touches: its face normal.
        assert_eq!(m.vertices[2].normal, [0.0, 0.0, 1.0]);
        // Shared vertices: (0, 0, 1) + (0, 2, 0) (twice the areas), normalized.
        let n = m.vertices[0].normal;
        let expect = [0.0, 2.0 / 5f32.sqrt(), 1.0 / 5f32.sqrt()];
        for k in 0..3 {
            assert!((n[k] - expect[k]).abs() < 1e-6, "{n:?}");
        }
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_obj("v 0 0 0\nv 1 0 0\nf 1 2 3\n").unwrap_err();
        assert_eq!((e.line, e.column), (3, 7));
        assert!(
            e.message.contains("position index 3 is out of range: 2"),
            "{}",
            e.message
        );
        let e = parse_obj("v 0 zero 0\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 5));
        assert!(
            e.message.contains("expected the y coordinate"),
            "{}",
            e.message
        );
        let e = parse_obj("v 0 0\n").unwrap_err();
        assert_eq!((e.line, e.column), (1, 6));
        let e = parse_obj("v 0 0 0\nf 1 1\n").unwrap_err();
        assert!(e.message.contains("at least 3 corners"), "{}", e.message);
        let e = parse_obj("bogus 1\n").unwrap_err();
        assert!(
            e.message.contains("unknown statement `bogus`"),
            "{}",
            e.message
        );
        let e = parse_obj("v 0 0 0\nv 0 0 0\nv 0 0 0\nf 1/2 2 3\n").unwrap_err();
        assert!(
            e.message.contains("texture coordinate index 2"),
            "{}",
            e.message
        );
        let e = parse_obj("v 0 0 0\nf 1/1/1/1 1 1\n").unwrap_err();
        assert!(e.message.contains("not a face corner"), "{}", e.message);
        let e = parse_obj("v nan 0 0\n").unwrap_err();
        assert!(e.message.contains("finite"), "{}", e.message);
    }

    #[test]
    fn other_statements_are_skipped() {
        let m = parse_obj(
            "mtllib a.mtl\no thing\ng part\ns 1\nusemtl red\nv 0 0 0\nv 1 0 0\nv 0 1 0\nl 1 2\nf 1 2 3\n",
        )
        .unwrap();
        assert_eq!(m.indices.len(), 3);
    }
}
