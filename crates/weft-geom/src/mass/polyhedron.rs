//! Mass properties of a closed triangle mesh by the divergence theorem: the signed
//! tetrahedra from a reference point to each face sum to the solid's volume, first
//! and second moments (Blow & Binstock, "How to find the inertia tensor (or other
//! mass properties) of a 3D solid body represented by a triangle mesh", the
//! covariance form of Mirtich / Eberly's polyhedral mass properties).

use glam::{DMat3, DVec3, Vec3};

use super::MassProperties;
use crate::error::{GeomError, Result};

/// Mass properties of uniform `density` inside the closed surface `triangles` over
/// `points` (counter-clockwise from outside); Err when the enclosed volume is not
/// positive and finite.
pub(super) fn polyhedron(
    density: f32,
    points: &[Vec3],
    triangles: &[[u32; 3]],
) -> Result<MassProperties> {
    // Work relative to a point near the solid, for accuracy far from the origin.
    let reference = points.iter().map(|p| p.as_dvec3()).sum::<DVec3>() / points.len() as f64;
    let mut volume = 0.0;
    let mut first = DVec3::ZERO;
    let mut covariance = DMat3::ZERO;
    // The covariance ∫ x xᵀ dV of the canonical tetrahedron (0, e1, e2, e3) is
    // (1/120) [[2,1,1],[1,2,1],[1,1,2]]; a tetrahedron (0, a, b, c) maps it by
    // A = [a b c]: det A · A C Aᵀ = det A / 120 · (a aᵀ + b bᵀ + c cᵀ + s sᵀ).
    for tri in triangles {
        let [a, b, c] = tri.map(|i| points[i as usize].as_dvec3() - reference);
        let det = a.dot(b.cross(c));
        let s = a + b + c;
        volume += det / 6.0;
        first += s * (det / 24.0);
        covariance += (outer(a, a) + outer(b, b) + outer(c, c) + outer(s, s)) * (det / 120.0);
    }
    if !(volume.is_finite() && volume > 0.0) {
        return Err(GeomError::InvalidVolume { volume });
    }
    let density = density as f64;
    let com = first / volume;
    // Covariance about the centre of mass, then inertia = tr(C) 1 − C.
    let c = (covariance - outer(com, com) * volume) * density;
    let inertia = DMat3::from_diagonal(DVec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c;
    Ok(MassProperties::from_f64(
        density * volume,
        com + reference,
        inertia,
    ))
}

/// `u vᵀ`.
pub(super) fn outer(u: DVec3, v: DVec3) -> DMat3 {
    DMat3::from_cols(u * v.x, u * v.y, u * v.z)
}
