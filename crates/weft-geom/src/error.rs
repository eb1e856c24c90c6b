//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong when building or loading geometry.
///
/// Messages say what was wrong and where (file, line, face or vertex), so they can be
/// shown to a user as they are.
#[derive(Debug, thiserror::Error)]
pub enum GeomError {
    /// A mesh file could not be opened or read.
    #[error("cannot read mesh file `{}`: {source}", path.display())]
    Io {
        /// The file that was asked for.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// A mesh file could not be written.
    #[error("cannot write mesh file `{}`: {source}", path.display())]
    Write {
        /// The file that was being written.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
    /// The OBJ text is malformed.
    #[error("`{}`{}: {message}", path.display(), line.map(|l| format!(" line {l}")).unwrap_or_default())]
    ObjSyntax {
        /// The file being parsed.
        path: PathBuf,
        /// 1-based line number, when it could be located.
        line: Option<usize>,
        /// What is wrong with it.
        message: String,
    },
    /// An OBJ face refers to a vertex that does not exist.
    #[error(
        "`{}` line {line}: face {face} refers to vertex {index}, but only {num_vertices} \
         vertices are defined before it (OBJ indices are 1-based; negative ones count back \
         from the last vertex)",
        path.display()
    )]
    ObjFaceIndex {
        /// The file being parsed.
        path: PathBuf,
        /// 1-based line number of the face.
        line: usize,
        /// 1-based number of the face among the file's faces.
        face: usize,
        /// The offending index as written in the file.
        index: i64,
        /// Number of `v` lines before the face.
        num_vertices: usize,
    },
    /// A triangle refers to a point index that is out of range.
    #[error(
        "face {face} (corner {corner}) refers to point {index}, but the mesh has {num_points} \
         points"
    )]
    IndexOutOfRange {
        /// 0-based face index.
        face: usize,
        /// Which corner of the face (0, 1 or 2).
        corner: usize,
        /// The offending point index.
        index: u32,
        /// Number of points in the mesh.
        num_points: usize,
    },
    /// A mesh has no triangles.
    #[error(
        "mesh{} has no triangles; a mesh needs at least one face",
        source_hint(path)
    )]
    EmptyMesh {
        /// The file it came from, if any.
        path: Option<PathBuf>,
    },
    /// A vertex position or velocity is NaN or infinite.
    #[error("{what} {vertex} is not finite: {value:?}")]
    NonFinite {
        /// `"vertex"` or `"velocity"`.
        what: &'static str,
        /// 0-based index in the mesh.
        vertex: usize,
        /// The offending value.
        value: [f32; 3],
    },
    /// An OBJ vertex position is NaN or infinite.
    #[error(
        "`{}` line {line}: vertex {vertex} (1-based, as OBJ faces count) is not finite: {text}",
        path.display()
    )]
    ObjNonFinite {
        /// The file being parsed.
        path: PathBuf,
        /// 1-based line number of the `v` line.
        line: usize,
        /// 1-based vertex number (as OBJ faces refer to it).
        vertex: usize,
        /// The coordinates as written.
        text: String,
    },
    /// Per-vertex data does not have one entry per point.
    #[error("{what} has {got} entries but the mesh has {expected} points")]
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The number of points.
        expected: usize,
    },
    /// A mesh or BVH is too large for 32-bit indices.
    #[error("{what} has {count} elements; at most {max} are supported (32-bit indices)")]
    TooLarge {
        /// What is too large.
        what: &'static str,
        /// How many there are.
        count: usize,
        /// The supported maximum.
        max: usize,
    },
    /// A parameter is out of its valid range.
    #[error("invalid parameter `{name}`: {message}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong and what is accepted.
        message: String,
    },
    /// A point set has no points.
    #[error("{what} got no points; it needs at least {needed}")]
    NoPoints {
        /// What was being built (`"convex hull"`).
        what: &'static str,
        /// How many points it needs.
        needed: usize,
    },
    /// A point set has too few points.
    #[error("{what} got {count} points; it needs at least {needed}")]
    TooFewPoints {
        /// What was being built (`"convex hull"`).
        what: &'static str,
        /// How many points it got.
        count: usize,
        /// How many it needs.
        needed: usize,
    },
    /// The points span no volume: they are all coincident, collinear or coplanar
    /// within the tolerance, which is relative to their extent.
    #[error(
        "convex hull: all {count} points are {degeneracy} (largest deviation {deviation:e} \
         is within the tolerance {tolerance:e}, relative to the points' extent), so they \
         enclose no volume"
    )]
    DegenerateHull {
        /// `"coincident"`, `"collinear"` or `"coplanar"`.
        degeneracy: &'static str,
        /// Number of input points.
        count: usize,
        /// The largest distance found from the point / line / plane.
        deviation: f64,
        /// The tolerance it was compared against.
        tolerance: f64,
    },
    /// A triangle mesh encloses no positive finite volume, so it has no mass properties.
    #[error(
        "mesh encloses volume {volume:e}, which is not positive and finite: the mesh is \
         open, inside out (faces must be counter-clockwise seen from outside) or degenerate"
    )]
    InvalidVolume {
        /// The signed volume computed by the divergence theorem.
        volume: f64,
    },
    /// Mass properties that no physical body has.
    #[error("invalid mass properties: {what} {message}")]
    InvalidMassProperties {
        /// Which quantity (`"mass"`, `"centre of mass"`, `"inertia"`).
        what: &'static str,
        /// What is wrong with it.
        message: String,
    },
}

fn source_hint(path: &Option<PathBuf>) -> String {
    path.as_ref()
        .map(|p| format!(" (from `{}`)", p.display()))
        .unwrap_or_default()
}

/// `Result` with [`GeomError`].
pub type Result<T, E = GeomError> = std::result::Result<T, E>;
