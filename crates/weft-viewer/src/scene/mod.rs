//! The logging API: what an app draws each frame, by name.
//!
//! An app logs entities into a [`Scene`] every frame (`log_points`, `log_mesh`,
//! `log_shapes`, `log_lines`, `log_scalar`); the renderer, a headless run or a
//! test reads them back. Logging copies the data (host memory), so the caller's
//! arrays are free again as soon as the call returns.

mod bounds;
mod coloring;
mod lines;
mod mesh;
mod points;
mod shapes;

pub use bounds::Bounds;
pub use coloring::Coloring;
pub use lines::{LineSet, Lines};
pub use mesh::{Mesh, TriMesh, smooth_normals};
pub use points::{PointCloud, Points};
pub use shapes::{Geometry, Shape};

pub(crate) use coloring::Colors;
pub(crate) use points::Radii;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::Error;

/// Stamps for [`Scene::version`], unique across every scene of the process: a
/// renderer that has uploaded one scene never takes another for it because both
/// were changed the same number of times (issue: a second `Scene` with as many
/// `log_*` calls as the first was drawn as the first).
static STAMPS: AtomicU64 = AtomicU64::new(1);

fn stamp() -> u64 {
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// One logged entity.
#[derive(Clone, Debug)]
pub(crate) enum Item {
    Points(PointCloud),
    Mesh(TriMesh),
    Shapes(Vec<Shape>, Option<Bounds>),
    Lines(LineSet),
}

impl Item {
    fn bounds(&self) -> Option<Bounds> {
        match self {
            Item::Points(p) => p.bounds,
            Item::Mesh(m) => m.bounds,
            Item::Shapes(_, b) => *b,
            Item::Lines(l) => l.bounds,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    pub(crate) name: String,
    pub(crate) item: Item,
    fresh: bool,
}

/// What to draw this frame: named particles, meshes, shapes and lines, and named
/// scalars (plotted in the panel, written to `scalars.csv` headless).
///
/// Logging an entity under a name replaces what that name held. The runner starts
/// each frame with [`begin_frame`](Self::begin_frame) and ends it with
/// [`end_frame`](Self::end_frame), which drops entities that were not logged again,
/// so an app simply logs what it wants seen. Allocations are reused from frame to
/// frame.
///
/// ```
/// use weft_viewer::{Points, Scene};
/// use glam::Vec3;
/// let mut scene = Scene::new();
/// scene.log_points("a", Points::new(&[Vec3::ZERO]))?;
/// scene.log_scalar("energy", 1.5);
/// assert_eq!(scene.scalars().collect::<Vec<_>>(), vec![("energy", 1.5)]);
///
/// scene.begin_frame();
/// scene.log_scalar("energy", 1.4); // "a" is not logged this frame...
/// scene.end_frame();
/// assert!(scene.points("a").is_none()); // ...so it is gone
/// # Ok::<(), weft_viewer::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Scene {
    pub(crate) entries: Vec<Entry>,
    scalars: Vec<(String, f64)>,
    version: u64,
}

impl Scene {
    /// An empty scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Particles under `name`.
    pub fn log_points(&mut self, name: &str, points: Points<'_>) -> Result<(), Error> {
        self.log(name, |item| match item {
            Some(Item::Points(p)) => p.assign(name, &points).map(|_| None),
            _ => {
                let mut p = PointCloud::empty();
                p.assign(name, &points)?;
                Ok(Some(Item::Points(p)))
            }
        })
    }

    /// A triangle mesh under `name`.
    pub fn log_mesh(&mut self, name: &str, mesh: Mesh<'_>) -> Result<(), Error> {
        self.log(name, |item| match item {
            Some(Item::Mesh(m)) => m.assign(name, &mesh).map(|_| None),
            _ => {
                let mut m = TriMesh::empty();
                m.assign(name, &mesh)?;
                Ok(Some(Item::Mesh(m)))
            }
        })
    }

    /// Rigid shapes under `name`.
    pub fn log_shapes(&mut self, name: &str, shapes: &[Shape]) -> Result<(), Error> {
        let bounds = shapes::check_shapes(name, shapes)?;
        self.log(name, |item| match item {
            Some(Item::Shapes(v, b)) => {
                v.clear();
                v.extend_from_slice(shapes);
                *b = bounds;
                Ok(None)
            }
            _ => Ok(Some(Item::Shapes(shapes.to_vec(), bounds))),
        })
    }

    /// Line segments under `name`.
    pub fn log_lines(&mut self, name: &str, lines: Lines<'_>) -> Result<(), Error> {
        self.log(name, |item| match item {
            Some(Item::Lines(l)) => l.assign(name, &lines).map(|_| None),
            _ => {
                let mut l = LineSet::empty();
                l.assign(name, &lines)?;
                Ok(Some(Item::Lines(l)))
            }
        })
    }

    /// A named scalar for this frame (energy, error, contact count…).
    pub fn log_scalar(&mut self, name: &str, value: f64) {
        match self.scalars.iter_mut().find(|(n, _)| n == name) {
            Some(s) => s.1 = value,
            None => self.scalars.push((name.to_string(), value)),
        }
    }

    /// Finds or creates the entry for `name`; `update` refreshes an existing item in
    /// place (returning `None`) or builds a new one. A failed update removes the entry.
    fn log(
        &mut self,
        name: &str,
        update: impl FnOnce(Option<&mut Item>) -> Result<Option<Item>, Error>,
    ) -> Result<(), Error> {
        self.version = stamp();
        let idx = self.entries.iter().position(|e| e.name == name);
        let result = update(idx.map(|i| &mut self.entries[i].item));
        match (result, idx) {
            (Ok(None), Some(i)) => self.entries[i].fresh = true,
            (Ok(Some(item)), Some(i)) => {
                self.entries[i].item = item;
                self.entries[i].fresh = true;
            }
            (Ok(Some(item)), None) => self.entries.push(Entry {
                name: name.to_string(),
                item,
                fresh: true,
            }),
            (Ok(None), None) => unreachable!("a new entity always builds an item"),
            (Err(e), i) => {
                if let Some(i) = i {
                    self.entries.remove(i);
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// Starts a frame: entities logged before now are dropped at
    /// [`end_frame`](Self::end_frame) unless logged again; scalars are cleared.
    pub fn begin_frame(&mut self) {
        for e in &mut self.entries {
            e.fresh = false;
        }
        self.scalars.clear();
    }

    /// Ends a frame: drops the entities not logged since [`begin_frame`](Self::begin_frame).
    pub fn end_frame(&mut self) {
        let before = self.entries.len();
        self.entries.retain(|e| e.fresh);
        if self.entries.len() != before {
            self.version = stamp();
        }
    }

    /// A stamp that changes whenever the scene's content may have changed, unique
    /// across the scenes of the process (0: a new, empty scene; a clone shares its
    /// original's stamp until either changes).
    pub fn version(&self) -> u64 {
        self.version
    }

    /// Names of the entities, in the order they were first logged.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.iter().map(|e| e.name.as_str())
    }

    /// The particles logged under `name`.
    pub fn points(&self, name: &str) -> Option<&PointCloud> {
        self.entries.iter().find_map(|e| match &e.item {
            Item::Points(p) if e.name == name => Some(p),
            _ => None,
        })
    }

    /// The mesh logged under `name`.
    pub fn mesh(&self, name: &str) -> Option<&TriMesh> {
        self.entries.iter().find_map(|e| match &e.item {
            Item::Mesh(m) if e.name == name => Some(m),
            _ => None,
        })
    }

    /// The shapes logged under `name`.
    pub fn shapes(&self, name: &str) -> Option<&[Shape]> {
        self.entries.iter().find_map(|e| match &e.item {
            Item::Shapes(s, _) if e.name == name => Some(s.as_slice()),
            _ => None,
        })
    }

    /// The lines logged under `name`.
    pub fn lines(&self, name: &str) -> Option<&LineSet> {
        self.entries.iter().find_map(|e| match &e.item {
            Item::Lines(l) if e.name == name => Some(l),
            _ => None,
        })
    }

    /// This frame's scalars, in logging order.
    pub fn scalars(&self) -> impl Iterator<Item = (&str, f64)> {
        self.scalars.iter().map(|(n, v)| (n.as_str(), *v))
    }

    /// Bounds of everything drawn (`None` for an empty scene).
    pub fn bounds(&self) -> Option<Bounds> {
        self.entries
            .iter()
            .map(|e| e.item.bounds())
            .fold(None, bounds::union)
    }

    /// Number of particles, triangles, shapes and segments, for the panel.
    pub(crate) fn counts(&self) -> [usize; 4] {
        let mut c = [0; 4];
        for e in &self.entries {
            match &e.item {
                Item::Points(p) => c[0] += p.len(),
                Item::Mesh(m) => c[1] += m.indices.len() / 3,
                Item::Shapes(s, _) => c[2] += s.len(),
                Item::Lines(l) => c[3] += l.segments.len(),
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Color, Colormap};
    use glam::Vec3;

    #[test]
    fn versions_differ_between_scenes_changed_alike() {
        let (mut a, mut b) = (Scene::new(), Scene::new());
        a.log_points("p", Points::new(&[Vec3::ZERO])).unwrap();
        b.log_points("p", Points::new(&[Vec3::ONE])).unwrap();
        assert_ne!(a.version(), b.version());
        assert_ne!(a.version(), Scene::new().version());
        let c = a.clone();
        assert_eq!(c.version(), a.version(), "a clone holds the same content");
        let v = a.version();
        a.begin_frame();
        a.end_frame();
        assert_ne!(a.version(), v, "dropping entities changes the version");
    }

    #[test]
    fn mismatched_lengths_are_clear_errors() {
        let x = [Vec3::ZERO; 3];
        let mut s = Scene::new();
        let e = s
            .log_points("p", Points::new(&x).colors(&[Color::RED; 2]))
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`p`: 3 points but 2 colours; give one colour per item"
        );
        let e = s
            .log_points("p", Points::new(&x).scalars(&[1.0], Colormap::Viridis))
            .unwrap_err();
        assert!(e.to_string().contains("3 points but 1 scalars"), "{e}");
        let e = s
            .log_points("p", Points::new(&x).radii(&[0.1; 4]))
            .unwrap_err();
        assert!(e.to_string().contains("3 points but 4 radii"), "{e}");
        let e = s.log_points("p", Points::new(&x).radius(-1.0)).unwrap_err();
        assert!(e.to_string().contains("radius -1 must be positive"), "{e}");
        let e = s.log_mesh("m", Mesh::new(&x, &[0, 1, 3])).unwrap_err();
        assert!(
            e.to_string()
                .contains("index 3 (entry 2) is out of range for 3 vertices"),
            "{e}"
        );
        let e = s.log_mesh("m", Mesh::new(&x, &[0, 1])).unwrap_err();
        assert!(
            e.to_string().contains("not a whole number of triangles"),
            "{e}"
        );
        let e = s.log_lines("l", Lines::indexed(&x, &[[0, 5]])).unwrap_err();
        assert!(e.to_string().contains("out of range for 3 points"), "{e}");
        let e = s
            .log_lines("l", Lines::vectors(&x, &x[..1], 1.0))
            .unwrap_err();
        assert!(e.to_string().contains("3 origins but 1 vectors"), "{e}");
        let e = s.log_shapes("s", &[Shape::sphere(f32::NAN)]).unwrap_err();
        assert!(e.to_string().contains("shape 0"), "{e}");
        assert_eq!(s.names().count(), 0, "failed logs leave nothing behind");
    }

    #[test]
    fn relogging_replaces_and_frames_drop_stale_entities() {
        let mut s = Scene::new();
        s.log_points("p", Points::new(&[Vec3::ZERO, Vec3::X]))
            .unwrap();
        s.log_points("p", Points::new(&[Vec3::Y])).unwrap();
        assert_eq!(s.points("p").unwrap().positions(), &[Vec3::Y]);
        s.log_lines("p", Lines::strip(&[Vec3::ZERO, Vec3::X]))
            .unwrap();
        assert!(
            s.points("p").is_none() && s.lines("p").is_some(),
            "a name changes kind"
        );
        s.begin_frame();
        s.log_shapes("box", &[Shape::cuboid(Vec3::ONE)]).unwrap();
        s.end_frame();
        assert_eq!(s.names().collect::<Vec<_>>(), vec!["box"]);
    }

    #[test]
    fn scalar_colours_use_the_data_range_unless_given() {
        let x = [Vec3::ZERO; 3];
        let mut s = Scene::new();
        s.log_points(
            "p",
            Points::new(&x).scalars(&[1.0, 2.0, 3.0], Colormap::Viridis),
        )
        .unwrap();
        let p = s.points("p").unwrap();
        assert_eq!(p.color_of(0), Colormap::Viridis.map(0.0));
        assert_eq!(p.color_of(2), Colormap::Viridis.map(1.0));
        s.log_points(
            "p",
            Points::new(&x)
                .scalars(&[1.0, 2.0, 3.0], Colormap::Viridis)
                .range(0.0, 4.0),
        )
        .unwrap();
        assert_eq!(
            s.points("p").unwrap().color_of(1),
            Colormap::Viridis.map(0.5)
        );
    }

    #[test]
    fn bounds_cover_everything() {
        let mut s = Scene::new();
        assert!(s.bounds().is_none());
        s.log_points("p", Points::new(&[Vec3::ZERO]).radius(1.0))
            .unwrap();
        s.log_shapes(
            "s",
            &[Shape::sphere(1.0).at(weft_types::Transform::from_translation(Vec3::X * 10.0))],
        )
        .unwrap();
        let b = s.bounds().unwrap();
        assert_eq!(b.min, Vec3::splat(-1.0));
        assert_eq!(b.max, Vec3::new(11.0, 1.0, 1.0));
    }
}
