//! Quickhull in `f64`: the triangulated hull of a point cloud, as triangles over the
//! input's indices.
//!
//! A point joins the hull only when it lies more than `eps` outside a face, so
//! duplicates and points on (or within `eps` of) the current hull are discarded; the
//! result may then hold nearly coplanar triangles, which [`super::polygons`] merges.

use std::collections::HashMap;

use glam::DVec3;

use crate::error::{GeomError, Result};

/// A triangle of the hull under construction.
struct Face {
    v: [u32; 3],
    normal: DVec3,
    offset: f64,
    /// Input points more than `eps` above this face, assigned to no other face.
    outside: Vec<u32>,
    alive: bool,
}

impl Face {
    fn new(points: &[DVec3], v: [u32; 3]) -> Self {
        let [a, b, c] = v.map(|i| points[i as usize]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let offset = normal.dot(a + b + c) / 3.0;
        Self {
            v,
            normal,
            offset,
            outside: Vec::new(),
            alive: true,
        }
    }

    fn distance(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    fn edges(&self) -> [(u32, u32); 3] {
        let [a, b, c] = self.v;
        [(a, b), (b, c), (c, a)]
    }
}

/// A directed edge between two point indices.
type Edge = (u32, u32);

/// Which of the points' faces a visibility search has decided.
#[derive(Clone, Copy, PartialEq)]
enum Seen {
    Unknown,
    Visible,
    Hidden,
}

/// The hull's triangles (counter-clockwise from outside) over indices into `points`.
///
/// `eps` is the distance below which a point counts as on a plane while building
/// (keep it near `f64` rounding: a point within `eps` of every face plane can still be
/// far outside a thin hull); errors when the points span no volume at the coarser
/// tolerance `flat_eps`.
pub(super) fn triangles(points: &[DVec3], eps: f64, flat_eps: f64) -> Result<Vec<[u32; 3]>> {
    let simplex = initial_simplex(points, flat_eps)?;
    let mut faces: Vec<Face> = Vec::new();
    let mut edge_face: HashMap<(u32, u32), usize> = HashMap::new();
    let inner = simplex.iter().map(|&i| points[i as usize]).sum::<DVec3>() / 4.0;
    for skip in 0..4 {
        let mut v = [0u32; 3];
        let mut k = 0;
        for (j, &s) in simplex.iter().enumerate() {
            if j != skip {
                v[k] = s;
                k += 1;
            }
        }
        let mut face = Face::new(points, v);
        if face.distance(inner) > 0.0 {
            face = Face::new(points, [v[0], v[2], v[1]]);
        }
        add_face(&mut faces, &mut edge_face, face);
    }
    let candidates: Vec<u32> = (0..points.len() as u32)
        .filter(|i| !simplex.contains(i))
        .collect();
    assign(points, &mut faces, 0..4, &candidates, eps);

    let mut pending: Vec<usize> = (0..4).collect();
    while let Some(start) = pending.pop() {
        if !faces[start].alive || faces[start].outside.is_empty() {
            continue;
        }
        let eye = furthest(points, &faces[start]);
        let eye_p = points[eye as usize];
        let Some((visible, horizon)) = visible_region(&faces, &edge_face, start, eye_p, eps) else {
            // The visible faces do not form a disk (rounding, with `eye` within a
            // hair of the hull): leave `eye` out rather than break the surface.
            faces[start].outside.retain(|&i| i != eye);
            pending.push(start);
            continue;
        };
        let mut orphans = Vec::new();
        for &f in &visible {
            let face = &mut faces[f];
            face.alive = false;
            orphans.extend(face.outside.drain(..).filter(|&i| i != eye));
            for e in face.edges() {
                edge_face.remove(&e);
            }
        }
        let first_new = faces.len();
        for (a, b) in horizon {
            let face = Face::new(points, [a, b, eye]);
            add_face(&mut faces, &mut edge_face, face);
        }
        let new_faces = first_new..faces.len();
        assign(points, &mut faces, new_faces, &orphans, eps);
        pending.extend(first_new..faces.len());
    }
    Ok(faces.iter().filter(|f| f.alive).map(|f| f.v).collect())
}

fn add_face(faces: &mut Vec<Face>, edge_face: &mut HashMap<(u32, u32), usize>, face: Face) {
    for e in face.edges() {
        edge_face.insert(e, faces.len());
    }
    faces.push(face);
}

/// Gives each point to the face among `range` it is furthest above (by more than
/// `eps`); points above none are inside and dropped.
fn assign(
    points: &[DVec3],
    faces: &mut [Face],
    range: std::ops::Range<usize>,
    candidates: &[u32],
    eps: f64,
) {
    for &i in candidates {
        let p = points[i as usize];
        let mut best = (eps, None);
        for f in range.clone() {
            let d = faces[f].distance(p);
            if d > best.0 {
                best = (d, Some(f));
            }
        }
        if let Some(f) = best.1 {
            faces[f].outside.push(i);
        }
    }
}

fn furthest(points: &[DVec3], face: &Face) -> u32 {
    let mut best = (f64::NEG_INFINITY, face.outside[0]);
    for &i in &face.outside {
        let d = face.distance(points[i as usize]);
        if d > best.0 {
            best = (d, i);
        }
    }
    best.1
}

/// The faces `eye` sees that connect to `start`, and the horizon: the edges (in the
/// visible faces' orientation) between a visible and a hidden face. `None` when the
/// horizon is not one simple loop.
fn visible_region(
    faces: &[Face],
    edge_face: &HashMap<(u32, u32), usize>,
    start: usize,
    eye: DVec3,
    eps: f64,
) -> Option<(Vec<usize>, Vec<Edge>)> {
    let mut seen: HashMap<usize, Seen> = HashMap::new();
    seen.insert(start, Seen::Visible);
    let mut visible = vec![start];
    let mut horizon = Vec::new();
    // Depth-first, so that the horizon edges of one visible face are found in order.
    let mut stack = vec![start];
    while let Some(f) = stack.pop() {
        for (a, b) in faces[f].edges() {
            let g = *edge_face.get(&(b, a))?;
            let state = *seen.entry(g).or_insert(Seen::Unknown);
            let state = if state == Seen::Unknown {
                let s = if faces[g].distance(eye) > eps {
                    visible.push(g);
                    stack.push(g);
                    Seen::Visible
                } else {
                    Seen::Hidden
                };
                seen.insert(g, s);
                s
            } else {
                state
            };
            if state == Seen::Hidden {
                horizon.push((a, b));
            }
        }
    }
    let mut starts: Vec<u32> = horizon.iter().map(|e| e.0).collect();
    starts.sort_unstable();
    let pinched = starts.windows(2).any(|w| w[0] == w[1]);
    (!pinched).then_some((visible, horizon))
}

/// Four points spanning the largest volume found greedily, or the error that says
/// why the points span none.
fn initial_simplex(points: &[DVec3], eps: f64) -> Result<[u32; 4]> {
    let degenerate = |degeneracy, deviation| GeomError::DegenerateHull {
        degeneracy,
        count: points.len(),
        deviation,
        tolerance: eps,
    };
    // The two furthest apart of the six axis extremes.
    let mut extremes = [0u32; 6];
    for axis in 0..3 {
        for (i, p) in points.iter().enumerate() {
            if p[axis] < points[extremes[2 * axis] as usize][axis] {
                extremes[2 * axis] = i as u32;
            }
            if p[axis] > points[extremes[2 * axis + 1] as usize][axis] {
                extremes[2 * axis + 1] = i as u32;
            }
        }
    }
    let (mut i0, mut i1, mut best) = (0, 0, -1.0);
    for &a in &extremes {
        for &b in &extremes {
            let d = points[a as usize].distance(points[b as usize]);
            if d > best {
                (i0, i1, best) = (a, b, d);
            }
        }
    }
    if best <= eps {
        return Err(degenerate("coincident", best));
    }
    let (p0, p1) = (points[i0 as usize], points[i1 as usize]);
    let dir = (p1 - p0) / best;
    let (i2, d2) = argmax(points, |p| (p - p0).cross(dir).length());
    if d2 <= eps {
        return Err(degenerate("collinear", d2));
    }
    let normal = (p1 - p0).cross(points[i2 as usize] - p0).normalize();
    let (i3, d3) = argmax(points, |p| normal.dot(p - p0).abs());
    if d3 <= eps {
        return Err(degenerate("coplanar", d3));
    }
    Ok([i0, i1, i2, i3])
}

fn argmax(points: &[DVec3], f: impl Fn(DVec3) -> f64) -> (u32, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, &p) in points.iter().enumerate() {
        let d = f(p);
        if d > best.1 {
            best = (i as u32, d);
        }
    }
    best
}
