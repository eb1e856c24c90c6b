//! The convex hulls of a scene's shapes as flat tables (host side of the
//! `ShapeSet` hull arrays): one copy per distinct hull (`Arc`), vertices and
//! faces concatenated with per-hull and per-face ranges.

use std::collections::HashMap;

use weft::prelude::*;

use crate::{Geometry, ShapeDesc};

/// Host tables, field for field the hull arrays of `ShapeSet`.
pub(crate) struct HullTables {
    pub source: Vec<i32>,
    pub hull_vertices: Vec<IVec2>,
    pub hull_faces: Vec<IVec2>,
    pub hull_points: Vec<Vec3>,
    pub face_planes: Vec<Vec4>,
    pub face_ranges: Vec<IVec2>,
    pub face_indices: Vec<i32>,
}

impl HullTables {
    /// Tables for the hulls of `shapes`, deduplicated by `Arc` pointer.
    pub fn new(shapes: &[ShapeDesc]) -> HullTables {
        let mut t = HullTables {
            source: Vec::with_capacity(shapes.len()),
            hull_vertices: Vec::new(),
            hull_faces: Vec::new(),
            hull_points: Vec::new(),
            face_planes: Vec::new(),
            face_ranges: Vec::new(),
            face_indices: Vec::new(),
        };
        let mut seen: HashMap<*const weft_geom::ConvexHull, i32> = HashMap::new();
        for s in shapes {
            let index = match &s.geometry {
                Geometry::Convex { hull, .. } => *seen
                    .entry(std::sync::Arc::as_ptr(hull))
                    .or_insert_with(|| t.push(hull)),
                _ => -1,
            };
            t.source.push(index);
        }
        t
    }

    /// Appends one hull; returns its index.
    fn push(&mut self, hull: &weft_geom::ConvexHull) -> i32 {
        let first = self.hull_points.len() as i32;
        self.hull_vertices
            .push(IVec2::new(first, hull.vertices().len() as i32));
        self.hull_points.extend_from_slice(hull.vertices());
        self.hull_faces.push(IVec2::new(
            self.face_planes.len() as i32,
            hull.faces().len() as i32,
        ));
        for f in hull.faces() {
            self.face_planes.push(f.normal.extend(f.offset));
            self.face_ranges.push(IVec2::new(
                self.face_indices.len() as i32,
                f.vertices.len() as i32,
            ));
            self.face_indices
                .extend(f.vertices.iter().map(|&v| first + v as i32));
        }
        self.hull_vertices.len() as i32 - 1
    }
}
