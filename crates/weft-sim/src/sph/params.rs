//! [`SphParams`]: the fluid's parameters, checked before a solver is made.

use glam::Vec3;

use crate::error::{Result, SimError};

/// Parameters of the weakly compressible SPH solver ([`Sph`](super::Sph)).
///
/// The kernel is Monaghan's cubic spline (M4) with smoothing length `h` and
/// compact support `2h`: neighbours are the particles within `2h`. On a lattice
/// of spacing `dx`, `h = 1.1 dx` gives about 40 neighbours inside the fluid
/// ([`SphParams::for_spacing`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SphParams {
    /// Smoothing length `h` (m); the kernel's support radius is `2h`.
    pub smoothing_length: f32,
    /// Rest density `ρ₀` (kg/m³).
    pub rest_density: f32,
    /// Stiffness `B` of the Tait equation of state (Pa):
    /// `p = B ((ρ/ρ₀)^7 − 1)`, clamped at 0 (no tension at the free surface).
    /// `B = ρ₀ c² / 7` for a numerical speed of sound `c`, usually ten times the
    /// fastest flow speed (density errors of about 1%).
    pub stiffness: f32,
    /// Kinematic viscosity `ν` (m²/s) of the laminar (Morris) viscosity term.
    pub viscosity: f32,
    /// Gravity (m/s²), Z up.
    pub gravity: Vec3,
    /// Time step (s). Stable below about `0.4 h / c` (the speed of sound) and
    /// `0.125 h² / ν`: see [`SphParams::stable_dt`].
    pub dt: f32,
    /// The lower corner of the domain box (m); no particle leaves the box.
    pub domain_lo: Vec3,
    /// The upper corner of the domain box (m).
    pub domain_hi: Vec3,
}

impl Default for SphParams {
    /// Water-like values for particles 2 cm apart in a 1 m box standing on the
    /// origin: `h` 2.2 cm, ρ₀ 1000, `c` = 20 m/s, ν = 2.2·10⁻³ m²/s, dt = 0.44 ms.
    fn default() -> Self {
        SphParams::for_spacing(0.02, 20.0)
    }
}

impl SphParams {
    /// Parameters for particles `spacing` apart and a speed of sound
    /// `sound_speed` (m/s): `h = 1.1 · spacing`, water's rest density,
    /// `B = ρ₀ c² / 7`, `ν = α c h / 10` with `α = 0.05` (the laminar equivalent
    /// of Monaghan's artificial viscosity `α`; enough to keep a weakly
    /// compressible fluid calm), the largest stable step ([`SphParams::stable_dt`]),
    /// and a unit box `[-0.5, 0.5]² × [0, 1]`.
    pub fn for_spacing(spacing: f32, sound_speed: f32) -> SphParams {
        let h = 1.1 * spacing;
        let rest_density = 1000.0;
        let mut p = SphParams {
            smoothing_length: h,
            rest_density,
            stiffness: rest_density * sound_speed * sound_speed / 7.0,
            viscosity: 0.05 * sound_speed * h / 10.0,
            gravity: Vec3::new(0.0, 0.0, -9.81),
            dt: 1.0,
            domain_lo: Vec3::new(-0.5, -0.5, 0.0),
            domain_hi: Vec3::new(0.5, 0.5, 1.0),
        };
        p.dt = p.stable_dt();
        p
    }

    /// The kernel's support radius `2h`: the neighbour search radius.
    pub fn support(&self) -> f32 {
        2.0 * self.smoothing_length
    }

    /// The numerical speed of sound `c = sqrt(7 B / ρ₀)` (m/s).
    pub fn sound_speed(&self) -> f32 {
        (7.0 * self.stiffness / self.rest_density).sqrt()
    }

    /// The largest stable time step: the smaller of the acoustic CFL bound
    /// `0.4 h / c` and the viscous bound `0.125 h² / ν`.
    pub fn stable_dt(&self) -> f32 {
        let h = self.smoothing_length;
        let acoustic = 0.4 * h / self.sound_speed().max(1e-6);
        let viscous = if self.viscosity > 0.0 {
            0.125 * h * h / self.viscosity
        } else {
            f32::INFINITY
        };
        acoustic.min(viscous)
    }

    /// Checks every parameter: an `Err` names the first bad one and says what
    /// it must be.
    pub fn validate(&self) -> Result<()> {
        positive("smoothing_length", self.smoothing_length)?;
        positive("rest_density", self.rest_density)?;
        positive("stiffness", self.stiffness)?;
        positive("dt", self.dt)?;
        if !(self.viscosity.is_finite() && self.viscosity >= 0.0) {
            return Err(param(
                "viscosity",
                format!("must be finite and ≥ 0, got {}", self.viscosity),
            ));
        }
        if !self.gravity.is_finite() {
            return Err(param(
                "gravity",
                format!("must be finite, got {:?}", self.gravity),
            ));
        }
        let (lo, hi) = (self.domain_lo, self.domain_hi);
        if !(lo.is_finite() && hi.is_finite() && lo.cmplt(hi).all()) {
            return Err(param(
                "domain",
                format!(
                    "domain_lo must be below domain_hi on every axis, both finite; got {lo:?} and {hi:?}"
                ),
            ));
        }
        Ok(())
    }
}

fn param(name: &'static str, message: String) -> SimError {
    SimError::InvalidParameter { name, message }
}

fn positive(name: &'static str, v: f32) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(param(name, format!("must be finite and > 0, got {v}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_stable() {
        let p = SphParams::default();
        p.validate().unwrap();
        assert!((p.sound_speed() - 20.0).abs() < 1e-3);
        assert!(p.dt <= 0.4 * p.smoothing_length / 20.0 + 1e-9);
    }
}
