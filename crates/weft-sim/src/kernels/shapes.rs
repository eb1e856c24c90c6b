//! Signed distances and outward normals of the analytic shapes, in the shape's
//! frame, and the penalty contact force.

use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

/// Signed distance from `p` (in the shape's frame) to a shape of `kind` and size
/// `scale` (see [`SHAPE_PLANE`](crate::SHAPE_PLANE) and the other kinds), with the
/// outward unit normal there. Far away (or off a bounded plane): a large distance.
#[weft::func]
pub fn shape_sdf(kind: i32, p: Vec3, scale: Vec3) -> (f32, Vec3) {
    let mut d = 1.0e10;
    let mut n = Vec3::Z;
    if kind == 0 {
        // Plane z = 0 of the shape frame, bounded when the half extents are set.
        let outside = scale.x > 0.0 && (abs(p.x) > scale.x || abs(p.y) > scale.y);
        if !outside {
            d = p.z;
        }
    } else if kind == 1 {
        let l = length(p);
        d = l - scale.x;
        if l > 0.0 {
            n = p / l;
        }
    } else if kind == 2 {
        let q = abs(p) - scale;
        if q.x > 0.0 || q.y > 0.0 || q.z > 0.0 {
            let m = max(q, Vec3::ZERO);
            d = length(m);
            n = normalize(m * sign(p));
        } else if q.x >= q.y && q.x >= q.z {
            d = q.x;
            n = Vec3::new(sign(p.x), 0.0, 0.0);
        } else if q.y >= q.z {
            d = q.y;
            n = Vec3::new(0.0, sign(p.y), 0.0);
        } else {
            d = q.z;
            n = Vec3::new(0.0, 0.0, sign(p.z));
        }
    } else if kind == 3 {
        let c = Vec3::new(0.0, 0.0, clamp(p.z, -scale.y, scale.y));
        let r = p - c;
        let l = length(r);
        d = l - scale.x;
        n = Vec3::X;
        if l > 0.0 {
            n = r / l;
        }
    }
    (d, n)
}

/// Penalty contact force on a particle with velocity `v` (relative to the
/// surface) penetrating by `c < 0` along the outward normal `n`: a spring and an
/// approach-only damper along `n`, and regularised Coulomb friction (stiffness
/// `kf` on the sliding speed, capped at `mu` times the normal force).
#[weft::func]
pub fn contact_force(n: Vec3, v: Vec3, c: f32, ke: f32, kd: f32, kf: f32, mu: f32) -> Vec3 {
    let vn = dot(n, v);
    let f_n = c * ke + min(vn, 0.0) * kd;
    let vt = v - n * vn;
    let vs = length(vt);
    let ft = min(vs * kf, abs(f_n * mu));
    n * (-f_n) - normalize(vt) * ft
}
