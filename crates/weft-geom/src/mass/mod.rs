//! Mass, centre of mass and inertia of solids of uniform density: primitives, convex
//! hulls and closed triangle meshes; moved into a parent frame, shifted (parallel
//! axis), summed, and split into principal moments and axes. Computed in `f64`.

mod eigen;
mod polyhedron;

use std::iter::Sum;
use std::ops::Add;

use glam::{DMat3, DQuat, DVec3, Mat3, Quat, Vec3};

use crate::error::{GeomError, Result};
use crate::hull::ConvexHull;
use crate::mesh::Mesh;
use polyhedron::outer;

/// The mass properties of a rigid body or shape.
///
/// `inertia` is the inertia tensor about the centre of mass `com`, in the axes of
/// the frame the shape is described in (kg·m²). Constructors take a uniform density
/// (kg/m³) and build the shape centred at the origin of its frame (capsule and
/// cylinder along local Z); they do not check their input: [`validate`](Self::validate)
/// refuses the result of a non-positive or non-finite density or size.
///
/// ```
/// use glam::{Quat, Vec3};
/// use weft_geom::MassProperties;
///
/// // A 1 m × 2 m × 3 m box of water with a 10 cm ball of steel on top.
/// let body = MassProperties::cuboid(1000.0, Vec3::new(0.5, 1.0, 1.5))
///     + MassProperties::sphere(7850.0, 0.1).transformed(Quat::IDENTITY, Vec3::Z * 1.6);
/// body.validate()?;
/// assert!((body.mass - (6000.0 + 7850.0 * 4.0 / 3.0 * std::f32::consts::PI * 1e-3)).abs() < 0.01);
/// let (moments, axes) = body.principal();
/// assert!(moments.x <= moments.y && moments.y <= moments.z);
/// # Ok::<(), weft_geom::GeomError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass (kg).
    pub mass: f32,
    /// Centre of mass in the shape's frame (m).
    pub com: Vec3,
    /// Inertia tensor about `com`, in the shape's frame (kg·m²).
    pub inertia: Mat3,
}

impl MassProperties {
    fn from_f64(mass: f64, com: DVec3, inertia: DMat3) -> Self {
        Self {
            mass: mass as f32,
            com: com.as_vec3(),
            inertia: inertia.as_mat3(),
        }
    }

    fn diagonal(mass: f64, moments: DVec3) -> Self {
        Self::from_f64(mass, DVec3::ZERO, DMat3::from_diagonal(moments))
    }

    /// A solid ball: `m = 4/3 π r³ ρ`, `I = 2/5 m r²` about every axis.
    pub fn sphere(density: f32, radius: f32) -> Self {
        let r = radius as f64;
        let m = density as f64 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        Self::diagonal(m, DVec3::splat(0.4 * m * r * r))
    }

    /// A solid box with the given half extents:
    /// `I_xx = m/3 (h_y² + h_z²)` and likewise.
    pub fn cuboid(density: f32, half_extents: Vec3) -> Self {
        let h = half_extents.as_dvec3();
        let m = density as f64 * 8.0 * h.x * h.y * h.z;
        let h2 = h * h;
        Self::diagonal(
            m,
            DVec3::new(h2.y + h2.z, h2.x + h2.z, h2.x + h2.y) * (m / 3.0),
        )
    }

    /// A solid cylinder along local Z, of length `2 half_height`:
    /// `I_zz = m r² / 2`, `I_xx = I_yy = m (r²/4 + h²/3)`.
    pub fn cylinder(density: f32, radius: f32, half_height: f32) -> Self {
        let (r, h) = (radius as f64, half_height as f64);
        let m = density as f64 * std::f64::consts::PI * r * r * 2.0 * h;
        let side = m * (r * r / 4.0 + h * h / 3.0);
        Self::diagonal(m, DVec3::new(side, side, 0.5 * m * r * r))
    }

    /// A solid capsule along local Z: a cylinder of length `2 half_height` capped by
    /// two hemispheres of `radius`. Each hemisphere (mass `m_h`) adds
    /// `m_h (2/5 r² + h² + 3/4 h r)` about X and Y (its own inertia moved from its
    /// centre of mass, `3/8 r` from its flat face, by the parallel-axis theorem).
    pub fn capsule(density: f32, radius: f32, half_height: f32) -> Self {
        let (r, h) = (radius as f64, half_height as f64);
        let cyl = Self::cylinder(density, radius, half_height);
        let balls = density as f64 * 4.0 / 3.0 * std::f64::consts::PI * r.powi(3);
        let side = cyl.inertia.x_axis.x as f64 + balls * (0.4 * r * r + h * h + 0.75 * h * r);
        let axial = cyl.inertia.z_axis.z as f64 + balls * 0.4 * r * r;
        Self::diagonal(cyl.mass as f64 + balls, DVec3::new(side, side, axial))
    }

    /// The solid convex hull (a hull always encloses a positive volume).
    pub fn convex(density: f32, hull: &ConvexHull) -> Self {
        polyhedron::polyhedron(density, hull.vertices(), hull.triangles())
            .expect("a convex hull encloses a positive volume")
    }

    /// The solid a closed triangle mesh encloses (faces counter-clockwise from
    /// outside), by the divergence theorem. Errs with [`GeomError::InvalidVolume`]
    /// when the enclosed volume is not positive and finite: an open, inside-out or
    /// flat mesh. (A mesh with holes may still pass with a wrong volume; its
    /// closedness is the caller's to ensure.)
    pub fn mesh(density: f32, mesh: &Mesh) -> Result<Self> {
        if mesh.num_points() == 0 {
            return Err(GeomError::InvalidVolume { volume: 0.0 });
        }
        polyhedron::polyhedron(density, mesh.points(), mesh.indices())
    }

    /// The same body placed in a parent frame: its frame rotated by `rotation` and
    /// moved by `translation`. The centre of mass moves to `rotation · com +
    /// translation`; the inertia becomes `R I Rᵀ`.
    pub fn transformed(&self, rotation: Quat, translation: Vec3) -> Self {
        let r = DMat3::from_quat(rotation.as_dquat().normalize());
        let com = r * self.com.as_dvec3() + translation.as_dvec3();
        Self::from_f64(
            self.mass as f64,
            com,
            r * self.inertia.as_dmat3() * r.transpose(),
        )
    }

    /// The inertia about `point` (same frame, axes unchanged), by the parallel-axis
    /// theorem: `I + m (|d|² 1 − d dᵀ)` with `d = point − com`.
    pub fn inertia_about(&self, point: Vec3) -> Mat3 {
        self.inertia_about_f64(point.as_dvec3()).as_mat3()
    }

    fn inertia_about_f64(&self, point: DVec3) -> DMat3 {
        let d = point - self.com.as_dvec3();
        self.inertia.as_dmat3()
            + (DMat3::from_diagonal(DVec3::splat(d.length_squared())) - outer(d, d))
                * self.mass as f64
    }

    /// Principal moments (ascending) and the rotation whose columns are the
    /// principal axes: `inertia = R · diag(moments) · Rᵀ` with `R = from_quat(axes)`.
    /// Found by Jacobi rotations in `f64`.
    pub fn principal(&self) -> (Vec3, Quat) {
        let (values, r) = eigen::symmetric_eigen(self.inertia.as_dmat3());
        (values.as_vec3(), DQuat::from_mat3(&r).normalize().as_quat())
    }

    /// Checks that a physical body has these properties: mass positive and finite,
    /// centre of mass finite, inertia finite, symmetric, positive definite, and its
    /// principal moments satisfying the triangle inequality (each at most the sum of
    /// the other two). The error names which fails.
    pub fn validate(&self) -> Result<()> {
        let bad = |what, message: String| Err(GeomError::InvalidMassProperties { what, message });
        if !(self.mass.is_finite() && self.mass > 0.0) {
            return bad("mass", format!("{} is not positive and finite", self.mass));
        }
        if !self.com.is_finite() {
            return bad("centre of mass", format!("{} is not finite", self.com));
        }
        let i = self.inertia.as_dmat3();
        if !self.inertia.is_finite() {
            return bad("inertia", format!("{:?} is not finite", self.inertia));
        }
        let scale = i.to_cols_array().iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let asym = (i - i.transpose())
            .to_cols_array()
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()));
        if asym > 1e-6 * scale {
            return bad("inertia", format!("{:?} is not symmetric", self.inertia));
        }
        let (m, _) = eigen::symmetric_eigen(i);
        if m.x <= 1e-9 * scale || scale == 0.0 {
            return bad(
                "inertia",
                format!(
                    "{:?} is not positive definite (principal moments {m})",
                    self.inertia
                ),
            );
        }
        if m.z > (m.x + m.y) * (1.0 + 1e-6) {
            return bad(
                "inertia",
                format!(
                    "principal moments {m} break the triangle inequality \
                     ({} > {} + {}): no mass distribution has them",
                    m.z, m.x, m.y
                ),
            );
        }
        Ok(())
    }

    /// No mass: the identity of `+` and of [`Sum`].
    pub const ZERO: Self = Self {
        mass: 0.0,
        com: Vec3::ZERO,
        inertia: Mat3::ZERO,
    };
}

/// The combined body: total mass, mass-weighted centre of mass, and both inertias
/// moved to it by the parallel-axis theorem. Both must be in the same frame.
impl Add for MassProperties {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        let (ma, mb) = (self.mass as f64, other.mass as f64);
        let mass = ma + mb;
        let com = if mass != 0.0 {
            (self.com.as_dvec3() * ma + other.com.as_dvec3() * mb) / mass
        } else {
            DVec3::ZERO
        };
        let inertia = self.inertia_about_f64(com) + other.inertia_about_f64(com);
        Self::from_f64(mass, com, inertia)
    }
}

impl Sum for MassProperties {
    fn sum<I: Iterator<Item = Self>>(iter: I) -> Self {
        iter.fold(Self::ZERO, |a, b| a + b)
    }
}
