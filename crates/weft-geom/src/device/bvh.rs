//! A BVH over the user's own boxes in one device's memory, for the queries of
//! `bvh_query.rs`, and its refit on the device.

use super::BvhNode;
use super::bvh_refit::bvh_refit;
use super::prelude::*;

/// A BVH over `n` items given by their boxes (`lowers[i]..uppers[i]` for item
/// `i`: particles' bounds, shapes, anything), in one device's memory: kernels
/// find the items that overlap a box ([`bvh_query_aabb`](super::bvh_query_aabb))
/// or that a ray meets ([`bvh_query_ray`](super::bvh_query_ray)). The tree is
/// built on the host (binned SAH, [`weft_geom::Bvh::build`](crate::Bvh::build)) and has the layout
/// of [`weft_geom::BvhNode`](crate::BvhNode); after the items move, rewrite `lowers` and
/// `uppers` (with a kernel, or a copy) and call [`DeviceBvh::refit`], which
/// recomputes the node boxes on the device; once the items have moved far from
/// where the tree was built, queries slow down and a new build pays off.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::DeviceBvh;
///
/// let lowers = [Vec3::ZERO, Vec3::splat(2.0)];
/// let uppers = [Vec3::ONE, Vec3::splat(3.0)];
/// let mut bvh = DeviceBvh::new(Device::Cpu, &lowers, &uppers)?;
/// assert_eq!(bvh.num_items(), 2);
/// // Move item 1 and refit.
/// bvh.lowers.copy_from_slice(&[Vec3::ZERO, Vec3::splat(-3.0)])?;
/// bvh.uppers.copy_from_slice(&[Vec3::ONE, Vec3::splat(-2.0)])?;
/// bvh.refit()?;
/// assert_eq!(bvh.nodes.to_vec()[0].lower, Vec3::splat(-3.0));
/// # Ok::<(), weft::Error>(())
/// ```
#[structure(crate = ::weft_runtime)]
pub struct DeviceBvh {
    /// BVH nodes, root first, depth-first order (a leaf's `left_or_first` is its
    /// first slot in `prims`). No items: one empty leaf.
    pub nodes: Array<BvhNode>,
    /// Item indices; leaves own contiguous runs.
    pub prims: Array<u32>,
    /// Parent of each node (`u32::MAX` for the root).
    pub parents: Array<u32>,
    /// Lower corner of each item's box, by item index.
    pub lowers: Array<Vec3>,
    /// Upper corner of each item's box, by item index.
    pub uppers: Array<Vec3>,
    /// Scratch of [`DeviceBvh::refit`]: a visit counter per node, kept so that a
    /// refit allocates nothing (and can be captured in a CUDA graph).
    visits: Array<u32>,
}

/// Most items a BVH takes: item indices stay in `i32` (and below the leaf bit).
const MAX_ITEMS: usize = i32::MAX as usize;

/// The name of axis `a`.
fn axis(a: usize) -> &'static str {
    ["x", "y", "z"][a]
}

/// The boxes of `lowers` and `uppers`, or the error for the first bad one.
fn item_boxes(lowers: &[Vec3], uppers: &[Vec3]) -> Result<Vec<crate::Aabb>, Error> {
    if lowers.len() != uppers.len() {
        return Err(Error::InvalidArgument {
            what: "item boxes",
            message: format!(
                "lowers has {} corners and uppers {}; give one lower and one upper corner per item",
                lowers.len(),
                uppers.len()
            ),
        });
    }
    if lowers.len() > MAX_ITEMS {
        return Err(Error::InvalidArgument {
            what: "item boxes",
            message: format!("a BVH takes at most 2^31 - 1 items, got {}", lowers.len()),
        });
    }
    lowers
        .iter()
        .zip(uppers)
        .enumerate()
        .map(|(i, (&lo, &hi))| {
            if !lo.is_finite() || !hi.is_finite() {
                return Err(Error::InvalidArgument {
                    what: "item boxes",
                    message: format!(
                        "item {i} has a corner that is not finite (NaN or infinite): lower {lo}, upper {hi}"
                    ),
                });
            }
            if let Some(a) = (0..3).find(|&a| lo[a] > hi[a]) {
                return Err(Error::InvalidArgument {
                    what: "item boxes",
                    message: format!(
                        "item {i} has lower > upper on the {} axis ({} > {}); the lower corner is the componentwise minimum",
                        axis(a),
                        lo[a],
                        hi[a]
                    ),
                });
            }
            Ok(crate::Aabb::new(lo, hi))
        })
        .collect()
}

impl DeviceBvh {
    /// Builds a BVH over the items `lowers[i]..uppers[i]` on the host (binned
    /// SAH, default [`weft_geom::BuildOptions`](crate::BuildOptions)) and copies it and the boxes to
    /// `device`. No items give a tree whose queries find nothing.
    ///
    /// Errors ([`Error::InvalidArgument`]): `lowers` and `uppers` of different
    /// lengths, a corner that is not finite, a lower corner above the upper one
    /// on some axis (each naming the first such item), 2³¹ items or more; or the
    /// device's errors.
    pub fn new(device: Device, lowers: &[Vec3], uppers: &[Vec3]) -> Result<Self, Error> {
        let boxes = item_boxes(lowers, uppers)?;
        let bvh = crate::Bvh::build(&boxes);
        let nodes: Vec<BvhNode> = bvh.nodes().iter().map(BvhNode::from).collect();
        Ok(DeviceBvh {
            visits: Array::try_zeros(device, [nodes.len()])?,
            nodes: Array::try_from_slice(device, &nodes)?,
            prims: Array::try_from_slice(device, bvh.prim_indices())?,
            parents: Array::try_from_slice(device, bvh.parents())?,
            lowers: Array::try_from_slice(device, lowers)?,
            uppers: Array::try_from_slice(device, uppers)?,
        })
    }

    /// [`DeviceBvh::new`] from boxes already in arrays (on any device, both on
    /// the same): they are read back, the tree is built on the host and the BVH
    /// (with copies of the boxes) is placed on their device. Errors as
    /// [`DeviceBvh::new`], and [`Error::DeviceMismatch`] for arrays on two devices.
    pub fn from_arrays(lowers: &Array<Vec3>, uppers: &Array<Vec3>) -> Result<Self, Error> {
        let device = lowers.device();
        if uppers.device() != device {
            return Err(Error::DeviceMismatch {
                kernel: "DeviceBvh::from_arrays",
                first: "lowers",
                first_device: device,
                other: "uppers",
                other_device: uppers.device(),
            });
        }
        Self::new(device, &lowers.try_to_vec()?, &uppers.try_to_vec()?)
    }

    /// Recomputes every node's box from the current `lowers` and `uppers`, on
    /// their device (a memset and one launch of the kernel `bvh_refit`,
    /// asynchronous on a GPU, no allocation): a leaf's box becomes the union of its items' boxes, an inner
    /// node's the union of its children's. The tree's topology and item order
    /// are kept, so the boxes are exactly those a build of this topology over the
    /// new boxes would have. The boxes are not read back, so nothing checks them:
    /// a NaN corner or a lower corner above the upper one gives a tree whose
    /// queries may miss items.
    ///
    /// Errors ([`Error::InvalidArgument`]): `lowers` or `uppers` replaced by
    /// arrays of another length than the item count (build a new `DeviceBvh`
    /// for another count); arrays on different devices
    /// ([`Error::DeviceMismatch`]); or the device's errors.
    pub fn refit(&mut self) -> Result<(), Error> {
        let n = self.num_items();
        if self.lowers.len() != n || self.uppers.len() != n {
            return Err(Error::InvalidArgument {
                what: "item boxes",
                message: format!(
                    "a refit keeps the tree's {n} items, but lowers has {} corners and uppers {}; build a new DeviceBvh for another item count",
                    self.lowers.len(),
                    self.uppers.len()
                ),
            });
        }
        if n == 0 {
            return Ok(());
        }
        self.visits.try_fill(0)?;
        bvh_refit::launch(
            self.nodes.len(),
            &self.lowers,
            &self.uppers,
            &self.prims,
            &self.parents,
            &mut self.visits,
            &mut self.nodes,
        )
    }

    /// Number of items the tree was built over.
    pub fn num_items(&self) -> usize {
        self.prims.len()
    }

    /// The device the BVH lives on.
    pub fn device(&self) -> Device {
        self.nodes.device()
    }
}
