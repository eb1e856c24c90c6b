//! Writing a [`Mesh`] as OBJ.

use std::io::{BufWriter, Write};
use std::path::Path;

use crate::error::{GeomError, Result};
use crate::mesh::Mesh;

/// Writes `mesh` as OBJ text (`v` lines, then 1-based `f` lines) to `out`.
///
/// Coordinates use Rust's shortest round-trip formatting, so reading the text back
/// gives the same `f32` values.
///
/// ```
/// use glam::Vec3;
/// use weft_geom::{Mesh, obj::write_obj};
///
/// let mesh = Mesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Y], vec![[0, 1, 2]])?;
/// let mut text = Vec::new();
/// write_obj(&mesh, &mut text).unwrap();
/// assert_eq!(String::from_utf8(text).unwrap(), "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
pub fn write_obj(mesh: &Mesh, out: impl Write) -> std::io::Result<()> {
    let mut w = BufWriter::new(out);
    for p in mesh.points() {
        writeln!(w, "v {} {} {}", p.x, p.y, p.z)?;
    }
    for [a, b, c] in mesh.indices() {
        writeln!(w, "f {} {} {}", a + 1, b + 1, c + 1)?;
    }
    w.flush()
}

impl Mesh {
    /// Writes the mesh to an OBJ file (see [`write_obj`]), creating parent folders.
    pub fn save_obj(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        let err = |source| GeomError::Write {
            path: path.into(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(err)?;
        }
        let file = std::fs::File::create(path).map_err(err)?;
        write_obj(self, file).map_err(err)
    }
}
