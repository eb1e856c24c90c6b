//! [`CollisionPipeline`]: the broad and narrow phases with their buffers,
//! allocated once.

use weft::geom::{DeviceBvh, DeviceHashGrid};
use weft::prelude::*;

use crate::broad::{
    LISTED_PER_SHAPE, list_moving_pairs, listed_pairs, moving_bounds, moving_pairs, static_pairs,
};
use crate::error::{CollideError, Result};
use crate::manifolds::ManifoldBuilder;
use crate::narrow::{narrow_classify, narrow_convex, narrow_primitives, narrow_terrain};
use crate::{ContactReport, Contacts, Manifolds, ShapeSet, kinds};

/// Settings of a [`CollisionPipeline`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollisionOptions {
    /// Contacts are reported while the shapes are closer than this (m): a
    /// solver sees contacts a step before they touch (default 0.01).
    pub margin: f32,
    /// Most candidate pairs per step (default: 16 per moving shape, at least
    /// 1,024).
    pub pair_capacity: Option<usize>,
    /// Most contacts per step (default: 4 per candidate pair slot).
    pub contact_capacity: Option<usize>,
    /// How moving shapes find each other (default [`BroadPhase::Auto`]).
    pub broad_phase: BroadPhase,
}

/// How the broad phase finds pairs of moving shapes (shapes on bodies) whose
/// boxes overlap. Both give the same pairs; they differ in cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BroadPhase {
    /// [`PairList`](Self::PairList) while it holds at most 32 pairs per moving
    /// shape (many small worlds: robots), else [`HashGrid`](Self::HashGrid).
    #[default]
    Auto,
    /// A hash grid over the shapes' centres, rebuilt every step: for large
    /// worlds (piles, granular scenes).
    HashGrid,
    /// Every pair of moving shapes of one world that may touch, listed when the
    /// pipeline is built; each step tests their boxes.
    PairList,
}

impl Default for CollisionOptions {
    fn default() -> Self {
        CollisionOptions {
            margin: 0.01,
            pair_capacity: None,
            contact_capacity: None,
            broad_phase: BroadPhase::Auto,
        }
    }
}

/// Finds the contacts of a [`ShapeSet`] at given body poses, on the shapes'
/// device, with every buffer allocated up front: [`CollisionPipeline::collide`]
/// makes launches only (no allocation, no read-back), so it can be captured in a
/// CUDA graph. Overflows of the pair or contact buffers are counted on the
/// device; [`CollisionPipeline::report`] reads them back.
///
/// ```
/// use weft::prelude::*;
/// use weft_collide::{CollisionOptions, CollisionPipeline, Geometry, ShapeDesc, ShapeSet};
///
/// let shapes = [
///     ShapeDesc::new(-1, Transform::IDENTITY, Geometry::Plane { half_extents: Vec2::ZERO }),
///     ShapeDesc::new(0, Transform::IDENTITY, Geometry::Box { half_extents: Vec3::splat(0.5) }),
/// ];
/// let set = ShapeSet::new(Device::Cpu, &shapes, 1)?;
/// let mut pipeline = CollisionPipeline::new(&set, 1, CollisionOptions::default())?;
/// let body_q = Array::from_slice(Device::Cpu, &[Transform::from_translation(Vec3::new(0.0, 0.0, 0.5))]);
/// pipeline.collide(&set, &body_q)?;
/// assert_eq!(pipeline.report()?.found, 4); // the box's four lower corners
/// # Ok::<(), weft_collide::CollideError>(())
/// ```
pub struct CollisionPipeline {
    options: CollisionOptions,
    /// Shapes on bodies, and their centres and boxes this step.
    moving: Array<i32>,
    centres: Array<Vec3>,
    lowers: Array<Vec3>,
    uppers: Array<Vec3>,
    max_radius: f32,
    /// Listed pairs of moving shapes ([`BroadPhase::PairList`]), or the grid.
    listed: Option<Array<IVec2>>,
    /// Speculative distance of each shape this step (0 for static ones).
    spec: Array<Vec4>,
    /// Zero velocities, for [`CollisionPipeline::collide`].
    rest: Array<SpatialVector>,
    grid: Option<DeviceHashGrid>,
    /// Static shapes and the BVH over their boxes.
    fixed: Array<i32>,
    statics: DeviceBvh,
    pairs: Array<IVec2>,
    pair_count: Array<i32>,
    /// Pairs per narrow-phase class, and the classes' lists of pair slots.
    class_count: Array<i32>,
    class_list: Array<i32>,
    /// The contacts of the last [`CollisionPipeline::collide`].
    pub contacts: Contacts,
    manifolds: ManifoldBuilder,
}

impl CollisionPipeline {
    /// Buffers for `shapes` (attached to `body_count` bodies) on their device.
    pub fn new(shapes: &ShapeSet, body_count: usize, options: CollisionOptions) -> Result<Self> {
        if !(options.margin.is_finite() && options.margin >= 0.0) {
            return Err(CollideError::InvalidParameter {
                name: "margin",
                message: format!("must be finite and >= 0, got {}", options.margin),
            });
        }
        let device = shapes.device();
        let body = shapes.body.try_to_vec()?;
        if let Some((i, &b)) = body
            .iter()
            .enumerate()
            .find(|(_, b)| **b >= body_count as i32)
        {
            return Err(CollideError::InvalidShape {
                index: i,
                message: format!("is attached to body {b}, but there are {body_count} bodies"),
            });
        }
        let radius = shapes.radius.try_to_vec()?;
        let moving: Vec<i32> = (0..body.len() as i32)
            .filter(|&s| body[s as usize] >= 0)
            .collect();
        let fixed: Vec<i32> = (0..body.len() as i32)
            .filter(|&s| body[s as usize] < 0)
            .collect();
        let max_radius = moving
            .iter()
            .map(|&s| radius[s as usize])
            .fold(0.0f32, f32::max);
        let (lo, hi) = static_boxes(shapes, &fixed, options.margin)?;
        let n = moving.len();
        let pair_capacity = options.pair_capacity.unwrap_or((16 * n).max(1024));
        let contact_capacity = options.contact_capacity.unwrap_or(4 * pair_capacity);
        if pair_capacity == 0 || pair_capacity > i32::MAX as usize / 2 {
            return Err(CollideError::InvalidParameter {
                name: "pair_capacity",
                message: format!("must be in 1..2^30, got {pair_capacity}"),
            });
        }
        let limit = match options.broad_phase {
            BroadPhase::Auto => LISTED_PER_SHAPE * n,
            BroadPhase::HashGrid => 0,
            BroadPhase::PairList => i32::MAX as usize,
        };
        let listed = match list_moving_pairs(shapes, &moving, limit)? {
            Some(list) => Some(Array::try_from_slice(device, &list)?),
            None => None,
        };
        // About one hashed cell per moving shape, at most 128³.
        let d = ((n as f64).cbrt().ceil() as u32).clamp(4, 128);
        let grid = match listed {
            Some(_) => None,
            None => Some(DeviceHashGrid::with_dim(device, [d, d, d])?),
        };
        Ok(CollisionPipeline {
            options,
            centres: Array::try_zeros(device, [n])?,
            lowers: Array::try_zeros(device, [n])?,
            uppers: Array::try_zeros(device, [n])?,
            moving: Array::try_from_slice(device, &moving)?,
            max_radius,
            spec: Array::try_zeros(device, [body.len()])?,
            rest: Array::try_zeros(device, [body_count])?,
            grid,
            listed,
            fixed: Array::try_from_slice(device, &fixed)?,
            statics: DeviceBvh::new(device, &lo, &hi)?,
            pairs: Array::try_zeros(device, [pair_capacity])?,
            pair_count: Array::try_zeros(device, [1])?,
            class_count: Array::try_zeros(device, [3])?,
            class_list: Array::try_zeros(device, [3 * pair_capacity])?,
            contacts: Contacts::new(device, contact_capacity)?,
            manifolds: ManifoldBuilder::new(device, pair_capacity, contact_capacity)?,
        })
    }

    /// The last [`collide`](Self::collide)'s contacts grouped by pair slot.
    pub fn manifolds(&self) -> &Manifolds {
        &self.manifolds.manifolds
    }

    /// How many candidate pairs fit (the range of [`Contacts::pair`]).
    pub fn pair_capacity(&self) -> usize {
        self.pairs.len()
    }

    /// The candidate pairs `(a, b)` of shape indices the last
    /// [`collide`](Self::collide) passed to the narrow phase (those that fit), in
    /// the order the threads wrote them (a read-back: for tests and debugging).
    pub fn candidate_pairs(&self) -> Result<Vec<IVec2>> {
        let n = (self.pair_count.try_to_vec()?[0].max(0) as usize).min(self.pairs.len());
        let mut pairs = self.pairs.try_to_vec()?;
        pairs.truncate(n);
        Ok(pairs)
    }

    /// The broad phase this pipeline runs for its moving shapes:
    /// [`BroadPhase::PairList`] or [`BroadPhase::HashGrid`] (what
    /// [`BroadPhase::Auto`] chose).
    pub fn broad_phase_kind(&self) -> BroadPhase {
        if self.listed.is_some() {
            BroadPhase::PairList
        } else {
            BroadPhase::HashGrid
        }
    }

    /// The settings.
    pub fn options(&self) -> CollisionOptions {
        self.options
    }

    /// Finds the contacts of `shapes` with the bodies at `body_q` into
    /// [`CollisionPipeline::contacts`] (launches only; nothing is read back on
    /// a GPU). Gradients do not flow through contact detection: it runs outside
    /// any recording tape, and solvers differentiate through the contact points
    /// stored in body frames.
    ///
    /// While a tape records, each call writes a new contact buffer (the tape
    /// keeps the old one alive for the backward pass of the launches that read
    /// it).
    pub fn collide(&mut self, shapes: &ShapeSet, body_q: &Array<Transform>) -> Result<()> {
        let rest = self.rest.share();
        self.collide_moving(shapes, body_q, &rest, 0.0)
    }

    /// [`collide`](Self::collide) for bodies moving at `body_qd` over the next
    /// `dt`: each shape's margin grows by how far it can move in `dt` (at most
    /// the largest moving shape's radius), so contacts a step will reach are
    /// found at its start (speculative contacts; a solver acts on them only
    /// once they touch).
    pub fn collide_moving(
        &mut self,
        shapes: &ShapeSet,
        body_q: &Array<Transform>,
        body_qd: &Array<SpatialVector>,
        dt: f32,
    ) -> Result<()> {
        check_moving(body_q, body_qd, dt)?;
        if Tape::is_recording() {
            let (device, capacity) = (self.contacts.device(), self.contacts.capacity());
            self.contacts = Contacts::new(device, capacity)?;
            self.manifolds = ManifoldBuilder::new(device, self.pairs.len(), capacity)?;
        }
        // Pair searches and narrow-phase tests are heavy per thread: on a
        // CPU even a few hundred of them are worth spreading over the cores.
        weft::cpu::with_grain(PAIR_GRAIN, || {
            Tape::pause(|| {
                self.broad_phase_untaped(shapes, body_q, body_qd, dt)?;
                self.narrow_phase_untaped(shapes, body_q)
            })
        })
    }

    /// The first half of [`collide_moving`](Self::collide_moving) (for timing
    /// the phases apart): the candidate pairs. Follow it with
    /// [`narrow_phase`](Self::narrow_phase) at the same poses.
    pub fn broad_phase(
        &mut self,
        shapes: &ShapeSet,
        body_q: &Array<Transform>,
        body_qd: &Array<SpatialVector>,
        dt: f32,
    ) -> Result<()> {
        check_moving(body_q, body_qd, dt)?;
        weft::cpu::with_grain(PAIR_GRAIN, || {
            Tape::pause(|| self.broad_phase_untaped(shapes, body_q, body_qd, dt))
        })
    }

    /// The second half of [`collide_moving`](Self::collide_moving): contacts of
    /// the candidate pairs the last [`broad_phase`](Self::broad_phase) found,
    /// grouped into manifolds.
    pub fn narrow_phase(&mut self, shapes: &ShapeSet, body_q: &Array<Transform>) -> Result<()> {
        weft::cpu::with_grain(PAIR_GRAIN, || {
            Tape::pause(|| self.narrow_phase_untaped(shapes, body_q))
        })
    }

    fn broad_phase_untaped(
        &mut self,
        shapes: &ShapeSet,
        body_q: &Array<Transform>,
        body_qd: &Array<SpatialVector>,
        dt: f32,
    ) -> Result<()> {
        let n = self.moving.len();
        let margin = self.options.margin;
        self.pair_count.try_fill(0)?;
        if n > 0 {
            let cap = self.max_radius;
            moving_bounds::launch(
                n,
                shapes,
                body_q,
                body_qd,
                &self.moving,
                margin,
                dt,
                cap,
                &mut self.centres,
                &mut self.lowers,
                &mut self.uppers,
                &mut self.spec,
            )?;
            if let Some(grid) = &mut self.grid {
                // The farthest a box reaches from its shape's centre.
                let extent = self.max_radius + cap + margin;
                grid.build(&self.centres, (2.0 * extent).max(1.0e-6))?;
                let reach = extent + margin;
                moving_pairs::launch(
                    n,
                    shapes,
                    &self.moving,
                    grid,
                    &self.centres,
                    &self.lowers,
                    &self.uppers,
                    &self.spec,
                    reach,
                    &mut self.pairs,
                    &mut self.pair_count,
                )?;
            }
            if let Some(listed) = self.listed.as_ref().filter(|l| !l.is_empty()) {
                // A few ns per thread: pieces larger than the pair searches'.
                weft::cpu::with_grain(LISTED_GRAIN, || {
                    listed_pairs::launch(
                        listed.len(),
                        &self.moving,
                        listed,
                        &self.lowers,
                        &self.uppers,
                        &mut self.pairs,
                        &mut self.pair_count,
                    )
                })?;
            }
            if !self.fixed.is_empty() {
                static_pairs::launch(
                    n,
                    shapes,
                    &self.moving,
                    &self.lowers,
                    &self.uppers,
                    &self.statics,
                    &self.fixed,
                    &mut self.pairs,
                    &mut self.pair_count,
                )?;
            }
        }
        Ok(())
    }

    fn narrow_phase_untaped(&mut self, shapes: &ShapeSet, body_q: &Array<Transform>) -> Result<()> {
        let margin = self.options.margin;
        self.contacts.count.try_fill(0)?;
        self.class_count.try_fill(0)?;
        // On the CPU the counts cost nothing to read; a GPU launches a thread
        // per pair slot and the surplus threads return at once.
        let cpu = shapes.device().is_cpu();
        let launch = if cpu {
            (self.pair_count.try_to_vec()?[0].max(0) as usize).min(self.pairs.len())
        } else {
            self.pairs.len()
        };
        if launch > 0 {
            narrow_classify::launch(
                launch,
                shapes,
                &self.pairs,
                &self.pair_count,
                &mut self.class_count,
                &mut self.class_list,
            )?;
            let counts = if cpu {
                self.class_count.try_to_vec()?
            } else {
                vec![launch as i32; 3]
            };
            type Kernel = fn(
                usize,
                &ShapeSet,
                &Array<Transform>,
                &Array<IVec2>,
                &Array<i32>,
                &Array<i32>,
                f32,
                &Array<Vec4>,
                &mut Contacts,
            ) -> std::result::Result<(), weft::Error>;
            let kernels: [Kernel; 3] = [
                narrow_primitives::launch,
                narrow_convex::launch,
                narrow_terrain::launch,
            ];
            for (kernel, n) in kernels.into_iter().zip(counts) {
                if n > 0 {
                    kernel(
                        n as usize,
                        shapes,
                        body_q,
                        &self.pairs,
                        &self.class_count,
                        &self.class_list,
                        margin,
                        &self.spec,
                        &mut self.contacts,
                    )?;
                }
            }
        }
        self.manifolds.build(&self.contacts, launch)
    }

    /// Reads back how many pairs and contacts the last [`collide`](Self::collide)
    /// found and how many did not fit (a synchronisation on a GPU).
    pub fn report(&self) -> Result<ContactReport> {
        let mut r = self.contacts.report()?;
        let pairs = self.pair_count.try_to_vec()?[0].max(0) as usize;
        r.pair_overflow = pairs.saturating_sub(self.pairs.len());
        Ok(r)
    }
}

/// The smallest piece of a collision launch on a CPU's threads (see
/// `weft::cpu::with_grain`).
const PAIR_GRAIN: usize = 128;
/// The smallest piece of the listed pairs' box tests on a CPU's threads.
const LISTED_GRAIN: usize = 2048;

/// One velocity per pose and a finite `dt >= 0`, or an error saying what is
/// wrong.
fn check_moving(body_q: &Array<Transform>, body_qd: &Array<SpatialVector>, dt: f32) -> Result<()> {
    if body_qd.len() != body_q.len() || !(dt.is_finite() && dt >= 0.0) {
        return Err(CollideError::InvalidParameter {
            name: "body_qd/dt",
            message: format!(
                "{} velocities for {} poses, dt {dt}: give one velocity per body and a finite dt >= 0",
                body_qd.len(),
                body_q.len()
            ),
        });
    }
    Ok(())
}

/// World boxes of the static shapes (grown by `margin`), for their BVH.
fn static_boxes(shapes: &ShapeSet, fixed: &[i32], margin: f32) -> Result<(Vec<Vec3>, Vec<Vec3>)> {
    let kind = shapes.kind.try_to_vec()?;
    let size = shapes.size.try_to_vec()?;
    let xf = shapes.transform.try_to_vec()?;
    let source = shapes.source.try_to_vec()?;
    let hull_vertices = shapes.hull_vertices.try_to_vec()?;
    let hull_points = shapes.hull_points.try_to_vec()?;
    let mesh_info = shapes.mesh_info.try_to_vec()?;
    let tri_nodes = shapes.tri_nodes.try_to_vec()?;
    let field_info = shapes.field_info.try_to_vec()?;
    let field_range = shapes.field_range.try_to_vec()?;
    let mut lo = Vec::with_capacity(fixed.len());
    let mut hi = Vec::with_capacity(fixed.len());
    for &s in fixed {
        let s = s as usize;
        let (k, sz, x) = (kind[s], size[s], xf[s]);
        let m = glam::Mat3::from_quat(x.q);
        if k == kinds::MESH || k == kinds::HEIGHTFIELD {
            // The local box (a mesh's BVH root, scaled; a field's extent and
            // height range), rotated and placed.
            let src = source[s] as usize;
            let (cl, hl) = if k == kinds::MESH {
                let root = tri_nodes[mesh_info[src].x as usize];
                (
                    (root.lower + root.upper) * 0.5 * sz,
                    (root.upper - root.lower) * 0.5 * sz,
                )
            } else {
                let (info, range) = (field_info[src], field_range[src]);
                (
                    Vec3::new(0.0, 0.0, 0.5 * (range.x + range.y)),
                    Vec3::new(
                        0.5 * (info.y - 1) as f32 * sz.x,
                        0.5 * (info.z - 1) as f32 * sz.y,
                        0.5 * (range.y - range.x),
                    ),
                )
            };
            let h = m.x_axis.abs() * hl.x + m.y_axis.abs() * hl.y + m.z_axis.abs() * hl.z;
            let c = x.transform_point(cl);
            lo.push(c - h - Vec3::splat(margin));
            hi.push(c + h + Vec3::splat(margin));
            continue;
        }
        if k == kinds::CONVEX {
            // The box of the hull's vertices, scaled and placed.
            let r = hull_vertices[source[s] as usize];
            let (l, h) = hull_points[r.x as usize..(r.x + r.y) as usize]
                .iter()
                .map(|v| x.transform_point(*v * sz))
                .fold(
                    (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
                    |(l, h), p| (l.min(p), h.max(p)),
                );
            lo.push(l - Vec3::splat(margin));
            hi.push(h + Vec3::splat(margin));
            continue;
        }
        let h = match k {
            kinds::SPHERE => Vec3::splat(sz.x),
            kinds::BOX => m.x_axis.abs() * sz.x + m.y_axis.abs() * sz.y + m.z_axis.abs() * sz.z,
            kinds::CAPSULE => m.z_axis.abs() * sz.y + Vec3::splat(sz.x),
            kinds::CYLINDER => {
                let rim = (Vec3::ONE - m.z_axis * m.z_axis).max(Vec3::ZERO);
                m.z_axis.abs() * sz.y + Vec3::new(rim.x.sqrt(), rim.y.sqrt(), rim.z.sqrt()) * sz.x
            }
            kinds::PLANE if sz.x > 0.0 => m.x_axis.abs() * sz.x + m.y_axis.abs() * sz.y,
            _ => Vec3::splat(1.0e7),
        } + Vec3::splat(margin);
        lo.push(x.p - h);
        hi.push(x.p + h);
    }
    Ok((lo, hi))
}
