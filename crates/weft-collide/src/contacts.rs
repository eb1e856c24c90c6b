//! The fixed-capacity contact buffer the narrow phase fills and the solvers read.

use weft::prelude::*;

use crate::error::{CollideError, Result};

/// Contacts between pairs of shapes, in preallocated arrays (so a step that
/// finds them can be captured in a CUDA graph). Contact `c < min(count, capacity)`
/// says: shape `shape_a[c]` touches `shape_b[c]`; `point_a[c]` (in the frame of
/// shape a's body, world frame for static shapes) and `point_b[c]` are the
/// nearest points of the two shapes' cores, `normal[c]` (world) points from a to
/// b, and `radius_a[c]`, `radius_b[c]` are the thicknesses around the cores
/// (a sphere's radius, 0 for a box), so the signed gap is
/// `normal · (world(point_b) − world(point_a)) − radius_a − radius_b`.
/// The solvers recompute it from the bodies' current poses.
///
/// `count[0]` counts every contact found, also past the capacity: those are not
/// stored, and [`Contacts::report`] tells the caller how many were lost.
#[weft::structure]
pub struct Contacts {
    /// Contacts found by the last narrow phase (may exceed the capacity).
    pub count: Array<i32>,
    /// The broad-phase pair slot that found the contact: the contacts of one
    /// pair are its manifold (solvers treat friction per manifold).
    pub pair: Array<i32>,
    /// First shape.
    pub shape_a: Array<i32>,
    /// Second shape.
    pub shape_b: Array<i32>,
    /// Point on a's core, in a's body frame.
    pub point_a: Array<Vec3>,
    /// Point on b's core, in b's body frame.
    pub point_b: Array<Vec3>,
    /// Unit normal from a to b, world frame.
    pub normal: Array<Vec3>,
    /// Thickness of a around its core.
    pub radius_a: Array<f32>,
    /// Thickness of b around its core.
    pub radius_b: Array<f32>,
}

/// How many contacts the last narrow phase found, and how many did not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContactReport {
    /// Contacts found.
    pub found: usize,
    /// Contacts stored (at most the capacity).
    pub stored: usize,
    /// Contacts found beyond the capacity and therefore not simulated.
    pub overflow: usize,
    /// Pairs from the broad phase beyond its capacity (not tested at all).
    pub pair_overflow: usize,
}

impl ContactReport {
    /// An `Err` when anything overflowed, naming the capacity to raise.
    pub fn check(&self) -> Result<()> {
        if self.pair_overflow > 0 {
            return Err(CollideError::InvalidParameter {
                name: "pair_capacity",
                message: format!(
                    "the broad phase found {} more candidate pairs than fit; raise the pair capacity",
                    self.pair_overflow
                ),
            });
        }
        if self.overflow > 0 {
            return Err(CollideError::InvalidParameter {
                name: "contact_capacity",
                message: format!(
                    "{} contacts found, {} stored: raise the contact capacity",
                    self.found, self.stored
                ),
            });
        }
        Ok(())
    }
}

impl Contacts {
    /// Room for `capacity` contacts on `device`.
    pub fn new(device: Device, capacity: usize) -> Result<Contacts> {
        if capacity == 0 || capacity > i32::MAX as usize / 2 {
            return Err(CollideError::InvalidParameter {
                name: "contact_capacity",
                message: format!("must be in 1..2^30, got {capacity}"),
            });
        }
        let z3 = || Array::<Vec3>::try_zeros(device, [capacity]);
        Ok(Contacts {
            count: Array::try_zeros(device, [1])?,
            pair: Array::try_zeros(device, [capacity])?,
            shape_a: Array::try_zeros(device, [capacity])?,
            shape_b: Array::try_zeros(device, [capacity])?,
            point_a: z3()?,
            point_b: z3()?,
            normal: z3()?,
            radius_a: Array::try_zeros(device, [capacity])?,
            radius_b: Array::try_zeros(device, [capacity])?,
        })
    }

    /// How many contacts fit.
    pub fn capacity(&self) -> usize {
        self.shape_a.len()
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> Device {
        self.count.device()
    }

    /// Threads for a launch over the stored contacts (each thread checks the
    /// count itself): on a GPU the capacity, so nothing is read back and the
    /// launch can be captured in a graph; on a CPU, where reading the count
    /// is free, the stored count (at least 1) — a launch over the whole
    /// buffer costs per slot, and its adjoint under a tape much more.
    pub fn launch_threads(&self) -> Result<usize> {
        if self.device().is_cpu() {
            Ok(self.report()?.stored.max(1))
        } else {
            Ok(self.capacity())
        }
    }

    /// Reads the count back (a device synchronisation on a GPU): found,
    /// stored and lost contacts.
    pub fn report(&self) -> Result<ContactReport> {
        let found = self.count.try_to_vec()?[0].max(0) as usize;
        let stored = found.min(self.capacity());
        Ok(ContactReport {
            found,
            stored,
            overflow: found - stored,
            pair_overflow: 0,
        })
    }

    /// The stored contacts, copied to the host (for tests and tools).
    pub fn to_host(&self) -> Result<Vec<Contact>> {
        let n = self.report()?.stored;
        let pair = self.pair.try_to_vec()?;
        let (sa, sb) = (self.shape_a.try_to_vec()?, self.shape_b.try_to_vec()?);
        let (pa, pb) = (self.point_a.try_to_vec()?, self.point_b.try_to_vec()?);
        let nn = self.normal.try_to_vec()?;
        let (ra, rb) = (self.radius_a.try_to_vec()?, self.radius_b.try_to_vec()?);
        Ok((0..n)
            .map(|c| Contact {
                pair: pair[c],
                shape_a: sa[c],
                shape_b: sb[c],
                point_a: pa[c],
                point_b: pb[c],
                normal: nn[c],
                radius_a: ra[c],
                radius_b: rb[c],
            })
            .collect())
    }

    /// Another handle on the same arrays.
    pub fn share(&self) -> Contacts {
        Contacts {
            count: self.count.share(),
            pair: self.pair.share(),
            shape_a: self.shape_a.share(),
            shape_b: self.shape_b.share(),
            point_a: self.point_a.share(),
            point_b: self.point_b.share(),
            normal: self.normal.share(),
            radius_a: self.radius_a.share(),
            radius_b: self.radius_b.share(),
        }
    }
}

/// One contact on the host (see [`Contacts`] for the fields' meaning).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Contact {
    /// The broad-phase pair slot (the manifold it belongs to).
    pub pair: i32,
    /// First shape.
    pub shape_a: i32,
    /// Second shape.
    pub shape_b: i32,
    /// Point on a's core, a's body frame.
    pub point_a: Vec3,
    /// Point on b's core, b's body frame.
    pub point_b: Vec3,
    /// Unit normal from a to b (world).
    pub normal: Vec3,
    /// Thickness of a.
    pub radius_a: f32,
    /// Thickness of b.
    pub radius_b: f32,
}
