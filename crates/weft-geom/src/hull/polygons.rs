//! Merges the coplanar triangles of a hull into convex polygons.

use std::collections::HashMap;

use glam::DVec3;

/// A face polygon over input indices, counter-clockwise from outside.
pub(super) struct Polygon {
    pub vertices: Vec<u32>,
    pub normal: DVec3,
}

/// Groups edge-connected triangles whose corners all lie within `eps` of the plane of
/// the group's largest triangle and whose boundary is a convex loop, and returns each
/// group's boundary loop.
///
/// A polygon's plane is that of its largest triangle (the most accurate one). Vertices
/// inside a merged polygon vanish with its inner edges; those on an edge between two
/// faces are dropped too (see [`drop_non_corners`]). Groups whose polygons would not
/// close into a valid polyhedron (thin slivers, flat to `eps`, folded onto each other)
/// are split back into their triangles until the result is valid.
pub(super) fn merge_coplanar(points: &[DVec3], triangles: &[[u32; 3]], eps: f64) -> Vec<Polygon> {
    let mut edge_tri: HashMap<(u32, u32), usize> = HashMap::new();
    for (t, tri) in triangles.iter().enumerate() {
        for e in edges(tri) {
            edge_tri.insert(e, t);
        }
    }
    let mut groups = grow_groups(points, triangles, &edge_tri, eps);
    loop {
        let (polygons, source) = polygons_of(points, triangles, &edge_tri, &groups, eps);
        let bad = invalid_polygons(points, &polygons);
        if bad.is_empty() {
            return polygons;
        }
        let mut split = vec![false; groups.len()];
        let mut progress = false;
        for b in bad {
            split[source[b]] = true;
            progress |= groups[source[b]].len() > 1;
        }
        if !progress {
            // Only single triangles are left to blame: use the triangulation as is.
            return triangles
                .iter()
                .map(|t| Polygon {
                    vertices: t.to_vec(),
                    normal: tri_cross(points, t).normalize(),
                })
                .collect();
        }
        groups = groups
            .into_iter()
            .zip(split)
            .flat_map(|(members, split)| match split {
                true => members.into_iter().map(|t| vec![t]).collect(),
                false => vec![members],
            })
            .collect();
    }
}

fn tri_cross(points: &[DVec3], t: &[u32; 3]) -> DVec3 {
    let p = |i: u32| points[i as usize];
    (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]))
}

/// Groups of triangles flat to `eps`, each listing its seed (largest) triangle first.
fn grow_groups(
    points: &[DVec3],
    triangles: &[[u32; 3]],
    edge_tri: &HashMap<(u32, u32), usize>,
    eps: f64,
) -> Vec<Vec<usize>> {
    let p = |i: u32| points[i as usize];
    let mut order: Vec<usize> = (0..triangles.len()).collect();
    order.sort_by(|&a, &b| {
        let area = |t: usize| tri_cross(points, &triangles[t]).length();
        area(b).total_cmp(&area(a))
    });
    let mut taken = vec![false; triangles.len()];
    let mut groups = Vec::new();
    for seed in order {
        if taken[seed] {
            continue;
        }
        let n = tri_cross(points, &triangles[seed]).normalize();
        let offset = n.dot(p(triangles[seed][0]));
        let mut members = vec![seed];
        taken[seed] = true;
        let mut k = 0;
        while k < members.len() {
            for (a, b) in edges(&triangles[members[k]]) {
                let Some(&t) = edge_tri.get(&(b, a)) else {
                    continue;
                };
                let flat = triangles[t]
                    .iter()
                    .all(|&v| (n.dot(p(v)) - offset).abs() <= eps);
                if !taken[t] && flat && tri_cross(points, &triangles[t]).dot(n) > 0.0 {
                    taken[t] = true;
                    members.push(t);
                }
            }
            k += 1;
        }
        groups.push(members);
    }
    groups
}

/// Each group's polygon (or its triangles, when its boundary is not a convex loop),
/// non-corners dropped, with the group each polygon came from.
fn polygons_of(
    points: &[DVec3],
    triangles: &[[u32; 3]],
    edge_tri: &HashMap<(u32, u32), usize>,
    groups: &[Vec<usize>],
    eps: f64,
) -> (Vec<Polygon>, Vec<usize>) {
    let mut group = vec![0; triangles.len()];
    for (g, members) in groups.iter().enumerate() {
        for &t in members {
            group[t] = g;
        }
    }
    let mut polygons = Vec::new();
    let mut source = Vec::new();
    for (g, members) in groups.iter().enumerate() {
        let n = tri_cross(points, &triangles[members[0]]).normalize();
        let boundary = match members.len() {
            1 => Some(triangles[members[0]].to_vec()),
            _ => boundary_loop(triangles, members, edge_tri, &group, g)
                .filter(|l| is_convex(points, l, n, eps)),
        };
        match boundary {
            Some(vertices) => {
                polygons.push(Polygon {
                    vertices,
                    normal: n,
                });
                source.push(g);
            }
            None => {
                // Not a convex disk: keep the triangles as faces.
                for &t in members {
                    polygons.push(Polygon {
                        vertices: triangles[t].to_vec(),
                        normal: tri_cross(points, &triangles[t]).normalize(),
                    });
                    source.push(g);
                }
            }
        }
    }
    drop_non_corners(points, &mut polygons, eps);
    (polygons, source)
}

/// The polygons that keep the set from being a closed convex polyhedron: fewer than
/// three corners, not strictly convex about their normal (so that their fans face
/// out), an edge without its reverse or used twice, a corner of fewer than three
/// polygons.
fn invalid_polygons(points: &[DVec3], polygons: &[Polygon]) -> Vec<usize> {
    let mut edge_use: HashMap<(u32, u32), Vec<usize>> = HashMap::new();
    let mut vertex_use: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut bad = Vec::new();
    for (i, poly) in polygons.iter().enumerate() {
        let n = poly.vertices.len();
        if n < 3 || !is_convex(points, &poly.vertices, poly.normal, 0.0) {
            bad.push(i);
        }
        for k in 0..n {
            let (a, b) = (poly.vertices[k], poly.vertices[(k + 1) % n]);
            edge_use.entry((a, b)).or_default().push(i);
            vertex_use.entry(a).or_default().push(i);
        }
    }
    for (&(a, b), users) in &edge_use {
        if users.len() > 1 || !edge_use.contains_key(&(b, a)) {
            bad.extend(users);
        }
    }
    for users in vertex_use.values() {
        if users.len() < 3 {
            bad.extend(users);
        }
    }
    bad.sort_unstable();
    bad.dedup();
    bad
}

fn edges(t: &[u32; 3]) -> [(u32, u32); 3] {
    [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])]
}

/// The group's boundary as one loop, or `None` when it is not one simple loop.
fn boundary_loop(
    triangles: &[[u32; 3]],
    members: &[usize],
    edge_tri: &HashMap<(u32, u32), usize>,
    group: &[usize],
    id: usize,
) -> Option<Vec<u32>> {
    let mut next: HashMap<u32, u32> = HashMap::new();
    for &t in members {
        for (a, b) in edges(&triangles[t]) {
            let inside = edge_tri.get(&(b, a)).is_some_and(|&u| group[u] == id);
            if !inside && next.insert(a, b).is_some() {
                return None;
            }
        }
    }
    let &start = next.keys().min()?;
    let mut vertices = vec![start];
    let mut v = next[&start];
    while v != start {
        if vertices.len() > next.len() {
            return None;
        }
        vertices.push(v);
        v = *next.get(&v)?;
    }
    (vertices.len() == next.len()).then_some(vertices)
}

/// Drops the vertices that lie on an edge (between its neighbours, within `eps` of
/// the line through them) in every polygon that holds them, when at most two do:
/// they are on an edge between two faces, not corners.
/// Whether the loop turns left (about `n`) at every corner, allowing `eps` of the
/// distance of each corner from the line through its predecessors (`eps = 0`: strictly).
fn is_convex(points: &[DVec3], polygon: &[u32], n: DVec3, eps: f64) -> bool {
    let m = polygon.len();
    (0..m).all(|k| {
        let [a, b, c] = [k, (k + 1) % m, (k + 2) % m].map(|i| points[polygon[i] as usize]);
        let ab = b - a;
        let turn = ab.cross(c - b).dot(n);
        turn > -eps * ab.length()
    })
}

fn drop_non_corners(points: &[DVec3], polygons: &mut [Polygon], eps: f64) {
    let p = |i: u32| points[i as usize];
    // Per vertex: (number of polygons holding it, in how many it is on an edge).
    let mut count: HashMap<u32, (usize, usize)> = HashMap::new();
    for poly in polygons.iter() {
        let n = poly.vertices.len();
        for k in 0..n {
            let v = poly.vertices[k];
            let (u, w) = (poly.vertices[(k + n - 1) % n], poly.vertices[(k + 1) % n]);
            let entry = count.entry(v).or_default();
            entry.0 += 1;
            entry.1 += usize::from(on_segment(p(u), p(v), p(w), eps));
        }
    }
    for poly in polygons.iter_mut() {
        poly.vertices.retain(|v| {
            let (held, on_edge) = count[v];
            held >= 3 || on_edge < held
        });
    }
}

/// Whether `v` lies within `eps` of segment `u`–`w`, strictly between its ends.
fn on_segment(u: DVec3, v: DVec3, w: DVec3, eps: f64) -> bool {
    let d = w - u;
    let len2 = d.length_squared();
    if len2 == 0.0 {
        return false;
    }
    let t = (v - u).dot(d) / len2;
    t > 0.0 && t < 1.0 && (v - u - d * t).length() <= eps
}
