//! Loading a [`Mesh`] from OBJ text or files.

use std::collections::HashMap;
use std::path::Path;

use glam::Vec3;

use super::diagnose;
use crate::error::{GeomError, Result};
use crate::mesh::Mesh;

/// How OBJ files are turned into a [`Mesh`].
#[derive(Clone, Copy, Debug)]
pub struct ObjOptions {
    /// Weld points whose coordinates are bitwise equal (`-0.0` equals `0.0`) into one,
    /// and order the points as their `v` lines in the file (unused vertices dropped).
    /// This reconnects faces of different objects or groups that share positions.
    /// Default `true`. Without it, each object keeps its own copy of shared positions
    /// and points come in order of first use by a face.
    pub weld: bool,
}

impl Default for ObjOptions {
    fn default() -> Self {
        Self { weld: true }
    }
}

impl Mesh {
    /// Loads an OBJ file with the default [`ObjOptions`].
    ///
    /// ```
    /// // One of the meshes committed under `crates/weft-geom/assets/`.
    /// let mesh = weft_geom::Mesh::load_obj("assets/torus.obj")?;
    /// assert_eq!(mesh.num_faces(), 2 * 48 * 24);
    /// # Ok::<(), weft_geom::GeomError>(())
    /// ```
    pub fn load_obj(path: impl AsRef<Path>) -> Result<Self> {
        Self::load_obj_with(path, ObjOptions::default())
    }

    /// Loads an OBJ file.
    pub fn load_obj_with(path: impl AsRef<Path>, options: ObjOptions) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| GeomError::Io {
            path: path.into(),
            source,
        })?;
        parse(path, &text, options)
    }

    /// Parses OBJ text; `name` is used in error messages in place of a path.
    ///
    /// ```
    /// let mesh = weft_geom::Mesh::from_obj_str(
    ///     "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n",
    ///     "quad",
    /// )?;
    /// assert_eq!(mesh.indices(), &[[0, 1, 2], [0, 2, 3]]);
    /// # Ok::<(), weft_geom::GeomError>(())
    /// ```
    pub fn from_obj_str(text: &str, name: &str) -> Result<Self> {
        parse(Path::new(name), text, ObjOptions::default())
    }
}

fn parse(path: &Path, text: &str, options: ObjOptions) -> Result<Mesh> {
    let load = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let (models, _materials) = tobj::load_obj_buf(&mut text.as_bytes(), &load, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| {
        match e {
            tobj::LoadError::FaceParseError | tobj::LoadError::FaceVertexOutOfBounds => {
                diagnose::bad_face(path, text)
            }
            _ => None,
        }
        .unwrap_or_else(|| GeomError::ObjSyntax {
            path: path.into(),
            line: None,
            message: e.to_string(),
        })
    })?;

    let mut points = Vec::new();
    let mut indices = Vec::new();
    for model in &models {
        let base = points.len() as u32;
        let m = &model.mesh;
        points.extend(
            m.positions
                .chunks_exact(3)
                .map(|c| Vec3::new(c[0], c[1], c[2])),
        );
        indices.extend(
            m.indices
                .chunks_exact(3)
                .map(|c| [c[0] + base, c[1] + base, c[2] + base]),
        );
    }
    if options.weld {
        weld(text, &mut points, &mut indices);
    }
    Mesh::new(points, indices).map_err(|e| match e {
        GeomError::EmptyMesh { .. } => GeomError::EmptyMesh {
            path: Some(path.into()),
        },
        GeomError::NonFinite { .. } => diagnose::non_finite_vertex(path, text).unwrap_or(e),
        e => e,
    })
}

/// Bit pattern of a position with `-0.0` read as `0.0`.
fn key(p: Vec3) -> [u32; 3] {
    (p + Vec3::ZERO).to_array().map(f32::to_bits)
}

/// Merges bitwise-equal points and orders the survivors as their first `v` line in the
/// file (tobj hands positions over in order of first use by a face). If some position
/// cannot be matched to a `v` line (e.g. a `w` coordinate was applied), the order of
/// first use is kept.
fn weld(text: &str, points: &mut Vec<Vec3>, indices: &mut [[u32; 3]]) {
    let mut line_of: HashMap<[u32; 3], usize> = HashMap::new();
    let file_points = text.lines().filter_map(|l| {
        let mut w = l.split_whitespace();
        (w.next() == Some("v")).then_some(())?;
        let mut c = [0.0f32; 3];
        for x in &mut c {
            *x = w.next()?.parse().ok()?;
        }
        Some(Vec3::from_array(c))
    });
    for (i, p) in file_points.enumerate() {
        line_of.entry(key(p)).or_insert(i);
    }
    let mut first: HashMap<[u32; 3], u32> = HashMap::with_capacity(points.len());
    let mut remap = Vec::with_capacity(points.len());
    let mut kept: Vec<Vec3> = Vec::with_capacity(points.len());
    for &p in points.iter() {
        let next = kept.len() as u32;
        let id = *first.entry(key(p)).or_insert(next);
        if id == next {
            kept.push(p);
        }
        remap.push(id);
    }
    let rank: Option<Vec<usize>> = kept
        .iter()
        .map(|&p| line_of.get(&key(p)).copied())
        .collect();
    if let Some(rank) = rank {
        let mut order: Vec<u32> = (0..kept.len() as u32).collect();
        order.sort_unstable_by_key(|&i| rank[i as usize]);
        let mut new_id = vec![0u32; kept.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        kept = order.iter().map(|&i| kept[i as usize]).collect();
        for r in &mut remap {
            *r = new_id[*r as usize];
        }
    }
    for tri in indices.iter_mut() {
        *tri = tri.map(|i| remap[i as usize]);
    }
    *points = kept;
}
