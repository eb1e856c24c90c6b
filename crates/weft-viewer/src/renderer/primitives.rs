//! Unit meshes for the shapes: a sphere, a box, a capsule and a cylinder.
//!
//! Vertices carry a `side` for capsules: +1 on the top half, -1 on the bottom half,
//! so the shader can pull the halves apart by the capsule's half height. The
//! equator ring is doubled (one copy per side) and the band between the copies
//! becomes the cylinder.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

/// Mirrors `ShapeVertex` in `shaders/shapes.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub(crate) struct ShapeVertex {
    pub(crate) position: [f32; 3],
    pub(crate) normal: [f32; 3],
    pub(crate) side: f32,
}

/// Index range and base vertex of one primitive in the shared buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Range {
    pub(crate) first_index: u32,
    pub(crate) index_count: u32,
    pub(crate) base_vertex: i32,
}

/// The four unit meshes, concatenated.
pub(crate) struct Primitives {
    pub(crate) vertices: Vec<ShapeVertex>,
    pub(crate) indices: Vec<u32>,
    pub(crate) sphere: Range,
    pub(crate) cuboid: Range,
    pub(crate) capsule: Range,
    pub(crate) cylinder: Range,
}

const SEGMENTS: u32 = 48;
const RINGS: u32 = 24; // even: the equator is a ring

/// A UV sphere; with `split`, the equator ring is doubled and halves get sides ±1.
fn sphere(split: bool, v: &mut Vec<ShapeVertex>, idx: &mut Vec<u32>) {
    let base = v.len() as u32;
    let mut rings: Vec<(f32, f32)> = Vec::new(); // (polar angle, side)
    for r in 0..=RINGS {
        let theta = std::f32::consts::PI * r as f32 / RINGS as f32;
        if split && r == RINGS / 2 {
            rings.push((theta, 1.0));
            rings.push((theta, -1.0));
        } else {
            let side = if !split {
                0.0
            } else if r < RINGS / 2 {
                1.0
            } else {
                -1.0
            };
            rings.push((theta, side));
        }
    }
    for &(theta, side) in &rings {
        for s in 0..=SEGMENTS {
            let phi = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            );
            v.push(ShapeVertex {
                position: n.into(),
                normal: n.into(),
                side,
            });
        }
    }
    let row = SEGMENTS + 1;
    for r in 0..rings.len() as u32 - 1 {
        for s in 0..SEGMENTS {
            let a = base + r * row + s;
            let b = a + row;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
}

fn cuboid(v: &mut Vec<ShapeVertex>, idx: &mut Vec<u32>) {
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = [0.0; 3];
            n[axis] = sign;
            let n = Vec3::from(n);
            // Two tangents spanning the face.
            let u = Vec3::from({
                let mut t = [0.0; 3];
                t[(axis + 1) % 3] = 1.0;
                t
            });
            let w = n.cross(u);
            let base = v.len() as u32;
            for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
                let p = n + u * a + w * b;
                v.push(ShapeVertex {
                    position: p.into(),
                    normal: n.into(),
                    side: 0.0,
                });
            }
            idx.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
}

/// A cylinder of radius 1 from `z = -1` to `z = 1`: a side band (normals
/// outward, its rings doubled from the caps' so edges stay sharp) and two caps
/// (fans around their centres, normals ±z).
fn cylinder(v: &mut Vec<ShapeVertex>, idx: &mut Vec<u32>) {
    let ring = |phi: f32| Vec3::new(phi.cos(), phi.sin(), 0.0);
    let base = v.len() as u32;
    for s in 0..=SEGMENTS {
        let n = ring(std::f32::consts::TAU * s as f32 / SEGMENTS as f32);
        for z in [-1.0, 1.0] {
            v.push(ShapeVertex {
                position: (n + Vec3::Z * z).into(),
                normal: n.into(),
                side: 0.0,
            });
        }
    }
    for s in 0..SEGMENTS {
        let (a, b) = (base + 2 * s, base + 2 * s + 2); // bottom of this and the next column
        idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
    }
    for z in [-1.0f32, 1.0] {
        let n = Vec3::Z * z;
        let centre = v.len() as u32;
        v.push(ShapeVertex {
            position: n.into(),
            normal: n.into(),
            side: 0.0,
        });
        for s in 0..=SEGMENTS {
            let p = ring(std::f32::consts::TAU * s as f32 / SEGMENTS as f32) + n;
            v.push(ShapeVertex {
                position: p.into(),
                normal: n.into(),
                side: 0.0,
            });
        }
        for s in 0..SEGMENTS {
            let (a, b) = (centre + 1 + s, centre + 2 + s);
            // Counter-clockwise seen from outside: the top cap turns with +z,
            // the bottom one against it.
            if z > 0.0 {
                idx.extend_from_slice(&[centre, a, b]);
            } else {
                idx.extend_from_slice(&[centre, b, a]);
            }
        }
    }
}

impl Primitives {
    pub(crate) fn new() -> Self {
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        let mut add = |f: &mut dyn FnMut(&mut Vec<ShapeVertex>, &mut Vec<u32>)| {
            let (v0, i0) = (vertices.len(), indices.len());
            let mut v = Vec::new();
            let mut i = Vec::new();
            f(&mut v, &mut i);
            vertices.extend(v);
            indices.extend(i);
            Range {
                first_index: i0 as u32,
                index_count: (indices.len() - i0) as u32,
                base_vertex: v0 as i32,
            }
        };
        let sphere_r = add(&mut |v, i| sphere(false, v, i));
        let cuboid_r = add(&mut |v, i| cuboid(v, i));
        let capsule_r = add(&mut |v, i| sphere(true, v, i));
        let cylinder_r = add(&mut |v, i| cylinder(v, i));
        Primitives {
            vertices,
            indices,
            sphere: sphere_r,
            cuboid: cuboid_r,
            capsule: capsule_r,
            cylinder: cylinder_r,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_stay_in_their_primitive() {
        let p = Primitives::new();
        for r in [p.sphere, p.cuboid, p.capsule, p.cylinder] {
            let idx = &p.indices[r.first_index as usize..(r.first_index + r.index_count) as usize];
            let max = *idx.iter().max().unwrap() as usize + r.base_vertex as usize;
            assert!(max < p.vertices.len());
            assert_eq!(idx.len() % 3, 0);
        }
    }

    #[test]
    fn box_faces_wind_outwards() {
        faces_wind_outwards(Primitives::new().cuboid);
    }

    #[test]
    fn cylinder_faces_wind_outwards_on_the_unit_cylinder() {
        let p = Primitives::new();
        let r = p.cylinder;
        faces_wind_outwards(r);
        let first = r.base_vertex as usize;
        let last = first
            + *p.indices[r.first_index as usize..(r.first_index + r.index_count) as usize]
                .iter()
                .max()
                .unwrap() as usize;
        for v in &p.vertices[first..=last] {
            let q = Vec3::from(v.position);
            let on_side = (q.truncate().length() - 1.0).abs() < 1e-5 && q.z.abs() <= 1.0;
            let on_cap = (q.z.abs() - 1.0).abs() < 1e-6 && q.truncate().length() <= 1.0 + 1e-5;
            assert!(on_side || on_cap, "{q}");
        }
    }

    /// Every triangle of `r` turns counter-clockwise seen from outside (its
    /// winding agrees with its first vertex's normal).
    fn faces_wind_outwards(r: Range) {
        let p = Primitives::new();
        for t in
            p.indices[r.first_index as usize..(r.first_index + r.index_count) as usize].chunks(3)
        {
            let v = |k: usize| p.vertices[t[k] as usize + r.base_vertex as usize];
            let (a, b, c) = (
                Vec3::from(v(0).position),
                Vec3::from(v(1).position),
                Vec3::from(v(2).position),
            );
            assert!((b - a).cross(c - a).dot(Vec3::from(v(0).normal)) > 0.0);
        }
    }
}
