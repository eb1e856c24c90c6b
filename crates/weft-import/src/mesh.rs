//! Mesh files: `package://` and relative-path resolution, OBJ (tobj) and STL (stl_io).

use crate::description::MeshData;
use crate::error::{ImportError, Location};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The meshes a description refers to, loaded once per (file, name).
pub(crate) struct MeshTable<'a> {
    base_dir: Option<PathBuf>,
    search: &'a [PathBuf],
    meshes: Vec<MeshData>,
    loaded: HashMap<(PathBuf, String), usize>,
    warnings: Vec<String>,
}

impl<'a> MeshTable<'a> {
    pub(crate) fn new(base_dir: Option<&Path>, search: &'a [PathBuf]) -> Self {
        Self {
            base_dir: base_dir.map(Path::to_path_buf),
            search,
            meshes: Vec::new(),
            loaded: HashMap::new(),
            warnings: Vec::new(),
        }
    }

    /// Index of the mesh in `filename` (loading it on first use); `None` with a
    /// warning for a format that is not supported; an error for a missing or
    /// unreadable file.
    pub(crate) fn get(
        &mut self,
        filename: &str,
        name: Option<&str>,
        location: &Location,
        element: &str,
    ) -> Result<Option<usize>, ImportError> {
        let tried = candidates(filename, self.base_dir.as_deref(), self.search);
        let Some(path) = tried.iter().find(|p| p.is_file()).cloned() else {
            let tried: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
            let tried = if tried.is_empty() {
                "no search path was given for package:// (ImportOptions::package_paths)".to_owned()
            } else {
                tried.join(", ")
            };
            return Err(ImportError::MeshNotFound {
                location: location.clone(),
                element: element.to_owned(),
                filename: filename.to_owned(),
                tried,
            });
        };
        if !supported(&path) {
            self.warnings.push(format!(
                "{location}: <{element}> mesh {} is not OBJ or STL; the geometry is skipped",
                path.display()
            ));
            return Ok(None);
        }
        let name = name.map_or_else(
            || {
                path.file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
            },
            str::to_owned,
        );
        if let Some(&i) = self.loaded.get(&(path.clone(), name.clone())) {
            return Ok(Some(i));
        }
        let mesh = load(&path, &name).map_err(|message| ImportError::BadMesh {
            location: location.clone(),
            path: path.clone(),
            message,
        })?;
        self.meshes.push(mesh);
        self.loaded.insert((path, name), self.meshes.len() - 1);
        Ok(Some(self.meshes.len() - 1))
    }

    /// The loaded meshes; appends this table's warnings to `warnings`.
    pub(crate) fn into_meshes(self, warnings: &mut Vec<String>) -> Vec<MeshData> {
        warnings.extend(self.warnings);
        self.meshes
    }
}

/// Candidate paths for a mesh file name, in the order they are tried.
///
/// `package://pkg/rest` is looked up as `dir/pkg/rest` for every search directory,
/// and as `dir/rest` for a search directory that is itself named `pkg`;
/// `file://` is stripped; a relative path is relative to `base_dir`.
pub(crate) fn candidates(
    filename: &str,
    base_dir: Option<&Path>,
    search: &[PathBuf],
) -> Vec<PathBuf> {
    if let Some(rest) = filename.strip_prefix("package://") {
        let (pkg, rel) = rest.split_once('/').unwrap_or((rest, ""));
        let mut out = Vec::new();
        for dir in search {
            out.push(dir.join(pkg).join(rel));
            if dir.file_name().is_some_and(|n| n == pkg) {
                out.push(dir.join(rel));
            }
        }
        return out;
    }
    let plain = filename.strip_prefix("file://").unwrap_or(filename);
    let p = Path::new(plain);
    match base_dir {
        Some(b) if p.is_relative() => vec![b.join(p)],
        _ => vec![p.to_path_buf()],
    }
}

/// Whether the importer can read this mesh file format (by extension).
pub(crate) fn supported(path: &Path) -> bool {
    matches!(extension(path).as_deref(), Some("obj" | "stl"))
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
}

/// Loads an OBJ or STL file into one triangle mesh.
pub(crate) fn load(path: &Path, name: &str) -> Result<MeshData, String> {
    let (vertices, triangles) = match extension(path).as_deref() {
        Some("obj") => load_obj(path)?,
        Some("stl") => load_stl(path)?,
        _ => return Err("unsupported mesh format (OBJ and STL are supported)".into()),
    };
    if triangles.is_empty() {
        return Err("the mesh has no triangles".into());
    }
    Ok(MeshData {
        name: name.to_owned(),
        path: path.to_path_buf(),
        vertices,
        triangles,
    })
}

type Triangles = (Vec<[f32; 3]>, Vec<[u32; 3]>);

fn load_obj(path: &Path) -> Result<Triangles, String> {
    let text = std::fs::read(path).map_err(|e| e.to_string())?;
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: true,
        ..Default::default()
    };
    // Materials are irrelevant to physics: never opened.
    let (models, _) = tobj::load_obj_buf(&mut text.as_slice(), &opts, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| format!("OBJ: {e}"))?;
    let (mut vertices, mut triangles) = (Vec::new(), Vec::new());
    for m in models {
        let base = vertices.len() as u32;
        let pos = &m.mesh.positions;
        vertices.extend(pos.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
        let n = (pos.len() / 3) as u32;
        for t in m.mesh.indices.chunks_exact(3) {
            if t.iter().any(|&i| i >= n) {
                return Err("OBJ: face index out of range".into());
            }
            triangles.push([base + t[0], base + t[1], base + t[2]]);
        }
    }
    Ok((vertices, triangles))
}

fn load_stl(path: &Path) -> Result<Triangles, String> {
    let mut file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mesh = stl_io::read_stl(&mut file).map_err(|e| format!("STL: {e}"))?;
    let vertices: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.0).collect();
    let n = vertices.len();
    let mut triangles = Vec::with_capacity(mesh.faces.len());
    for f in &mesh.faces {
        if f.vertices.iter().any(|&i| i >= n) {
            return Err("STL: face index out of range".into());
        }
        triangles.push(f.vertices.map(|i| i as u32));
    }
    Ok((vertices, triangles))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn package_paths_try_parent_and_package_dirs() {
        let search = [PathBuf::from("/a"), PathBuf::from("/b/robot")];
        let c = candidates("package://robot/meshes/x.stl", None, &search);
        assert_eq!(
            c,
            vec![
                PathBuf::from("/a/robot/meshes/x.stl"),
                PathBuf::from("/b/robot/robot/meshes/x.stl"),
                PathBuf::from("/b/robot/meshes/x.stl"),
            ]
        );
    }

    #[test]
    fn relative_paths_are_relative_to_the_file() {
        let c = candidates("m/x.obj", Some(Path::new("/d")), &[]);
        assert_eq!(c, vec![PathBuf::from("/d/m/x.obj")]);
        assert_eq!(
            candidates("file:///x.obj", Some(Path::new("/d")), &[]),
            vec![PathBuf::from("/x.obj")]
        );
    }
}
