//! Angles and offsets of a joint's relative motion about and along its own
//! axes, shared by the solvers that read coordinates off poses
//! (`weft-articulation`'s `eval_ik`, [`XpbdRigid`](crate::XpbdRigid)'s joint
//! limits and drives).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;

/// The angle that turns `u` into `w` about the unit axis `a` (both projected
/// on the plane normal to `a`; 0 where either projection vanishes).
#[weft::func]
pub fn angle_about(a: Vec3, u: Vec3, w: Vec3) -> f32 {
    let up = u - a * dot(a, u);
    let wp = w - a * dot(a, w);
    atan2(dot(a, cross(up, wp)), dot(up, wp))
}

/// The angle of the rotation `r` about the unit axis `a` (its twist about
/// `a`; exact when `r` turns about `a`), in `(−2π, 2π]`.
#[weft::func]
pub fn twist_angle(r: Quat, a: Vec3) -> f32 {
    2.0 * atan2(r.x * a.x + r.y * a.y + r.z * a.z, r.w)
}

/// The coefficients `c` of `v = Σₖ cₖ aₖ` over the first `n` (1 to 3)
/// independent axes `a0, a1, a2` (the least-squares ones for `n < 3` where `v`
/// leaves their span); unused entries 0.
#[weft::func]
pub fn solve_axes(n: i32, a0: Vec3, a1: Vec3, a2: Vec3, v: Vec3) -> Vec3 {
    let mut c = Vec3::ZERO;
    if n == 1 {
        c = Vec3::new(dot(v, a0) / dot(a0, a0), 0.0, 0.0);
    } else if n == 2 {
        // Solve the 2 × 2 normal equations (Cramer).
        let g00 = dot(a0, a0);
        let g01 = dot(a0, a1);
        let g11 = dot(a1, a1);
        let b0 = dot(a0, v);
        let b1 = dot(a1, v);
        let det = g00 * g11 - g01 * g01;
        c = Vec3::new(
            (b0 * g11 - b1 * g01) / det,
            (g00 * b1 - g01 * b0) / det,
            0.0,
        );
    } else if n == 3 {
        let det = dot(a0, cross(a1, a2));
        c = Vec3::new(
            dot(v, cross(a1, a2)) / det,
            dot(a0, cross(v, a2)) / det,
            dot(a0, cross(a1, v)) / det,
        );
    }
    c
}

/// The angles `(θ0, θ1, θ2)` with `r = R(a0, θ0) R(a1, θ1) R(a2, θ2)` (unit
/// axes), on the branch `branch = ±1` of the middle angle's two solutions.
#[weft::func]
pub fn angles3(r: Quat, a0: Vec3, a1: Vec3, a2: Vec3, branch: f32) -> Vec3 {
    // a0ᵀ r a2 = a0ᵀ R(a1, θ1) a2 = c + ca cos θ1 + cb sin θ1.
    let c = dot(a1, a2) * dot(a0, a1);
    let ca = dot(a0, a2) - c;
    let cb = dot(a0, cross(a1, a2));
    let target = dot(a0, quat_rotate(r, a2));
    let rho = max(sqrt(ca * ca + cb * cb), 1e-12);
    let t1 = atan2(cb, ca) + branch * acos(clamp((target - c) / rho, -1.0, 1.0));
    let q1 = quat_from_axis_angle(a1, t1);
    let t0 = angle_about(a0, quat_rotate(q1, a2), quat_rotate(r, a2));
    let q0 = quat_from_axis_angle(a0, t0);
    let t2 = twist_angle(quat_inverse(q0 * q1) * r, a2);
    Vec3::new(t0, t1, t2)
}

/// Entry `k` (0, 1 or 2) of `v`.
#[weft::func]
pub fn component(v: Vec3, k: i32) -> f32 {
    let mut x = v.x;
    if k == 1 {
        x = v.y;
    } else if k == 2 {
        x = v.z;
    }
    x
}
