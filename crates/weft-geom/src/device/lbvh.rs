//! A [`DeviceMesh`]'s BVH built where its arrays live, by kernels: a linear BVH
//! (Morton codes, a radix sort, Karras' hierarchy, bottom-up boxes). The kernels
//! and the node order are described in the source of `lbvh_kernels.rs`.

use super::bvh_refit::mesh_refit;
use super::grid_build::{grow, scan_counts, scan_sizes};
use super::lbvh_kernels::{
    PASSES, RADIX_BITS, TILE, lbvh_bounds, lbvh_chain_len, lbvh_chain_place, lbvh_digit_counts,
    lbvh_hierarchy, lbvh_merge_slots, lbvh_morton, lbvh_nodes, lbvh_reset, lbvh_scatter,
};
use super::prelude::*;
use super::winding_build::winding_climb;
use super::{BvhNode, DeviceMesh};

/// Copies of the centroid box that `lbvh_bounds` merges into on a GPU (spreading
/// its atomics over addresses); one on the CPU.
const GPU_SLOTS: usize = 64;

/// Faces per thread of `lbvh_bounds` on a GPU (reduced in registers first).
const GPU_FACES_PER_THREAD: usize = 4;

/// Called after each stage of a build with the stage's name.
type Mark<'a> = dyn FnMut(&'static str) -> Result<(), Error> + 'a;

/// Most faces a device build takes: node ids (`2 n - 1`) stay in `i32`.
const MAX_FACES: usize = 1 << 30;

/// Builds and rebuilds the BVH of [`DeviceMesh`]es on a device, keeping the
/// scratch between builds so that a rebuild of a mesh whose face count has not
/// changed allocates nothing (and can be captured in a CUDA graph).
///
/// The tree is a linear BVH: one face per leaf, faces ordered along a Morton
/// curve of their centroids (Karras 2012). It is built in about 40 launches whose
/// work does not depend on how the faces are distributed, and is exactly the same
/// on the CPU and on a GPU (no step depends on thread timing). It is quicker to
/// build than [`DeviceMesh::new`]'s host SAH tree and slower to query: the choice
/// for meshes that deform every step, or that are too large to build on the host
/// in time.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::{DeviceMesh, LbvhBuilder};
///
/// let device = Device::Cpu; // or Device::best()
/// let host = weft_geom::generate::icosphere(1.0, 2);
/// let points = Array::from_slice(device, host.points());
/// let faces: Vec<u32> = host.indices().iter().flatten().copied().collect();
/// let faces = Array::from_slice(device, &faces);
/// let mut builder = LbvhBuilder::new(device);
/// let mut mesh = builder.build(&points, &faces)?;
/// assert_eq!(mesh.nodes.len(), 2 * mesh.num_faces() - 1);
/// // ... move mesh.points with a kernel, then, every step:
/// builder.rebuild(&mut mesh)?;
/// # Ok::<(), weft::Error>(())
/// ```
pub struct LbvhBuilder {
    device: Device,
    /// Centroid-box slots, then the two error records (see `lbvh_reset`).
    bounds: Array<u32>,
    /// Sort keys (Morton codes), read by a pass; sorted codes after the sort.
    keys: Array<u32>,
    /// Sort values (face indices), with `keys`.
    vals: Array<u32>,
    /// Keys written by a pass.
    keys_out: Array<u32>,
    /// Values written by a pass.
    vals_out: Array<u32>,
    /// Per tile and digit counts of a pass; later the chain lengths.
    counts: Array<u32>,
    /// Their exclusive scan (digit starts; chain starts).
    starts: Array<u32>,
    /// Their inclusive scan (chain ends).
    ends: Array<u32>,
    /// Scan scratch (see `grid_build.rs`).
    chunk_sums: Array<u32>,
    /// Scan scratch.
    chunk_prefix: Array<u32>,
    /// Scan scratch.
    group_sums: Array<u32>,
    /// Left child id of each internal node.
    left: Array<u32>,
    /// Right child id of each internal node.
    right: Array<u32>,
    /// Parent id of each node id.
    parent: Array<u32>,
    /// Final index of each node id.
    pos: Array<u32>,
    /// Visit counters of the bottom-up pass.
    visits: Array<u32>,
    /// Whether builds compute the mesh's winding data.
    winding: bool,
    /// Visit counters of the winding pass and of refits, one per node.
    node_visits: Array<u32>,
    /// The face count the scratch is sized for.
    faces: usize,
}

fn empty(device: Device) -> Result<Array<u32>, Error> {
    Array::try_zeros(device, [0])
}

/// A mesh's BVH arrays: nodes, prims, parents, leaf-order triangles.
type Tree = (Array<BvhNode>, Array<u32>, Array<u32>, Array<Vec4>);

/// The BVH arrays of an empty mesh: one leaf with no faces and an empty box.
fn empty_tree(device: Device) -> Result<Tree, Error> {
    let e = crate::Aabb::EMPTY;
    let root = BvhNode {
        lower: e.lower,
        left_or_first: 0,
        upper: e.upper,
        right_or_count: crate::bvh::LEAF_BIT,
    };
    Ok((
        Array::try_from_slice(device, &[root])?,
        empty(device)?,
        Array::try_from_slice(device, &[crate::bvh::NO_PARENT])?,
        Array::try_zeros(device, [0])?,
    ))
}

impl LbvhBuilder {
    /// A builder for meshes on `device`; allocates its scratch at the first build.
    pub fn new(device: Device) -> Self {
        let z = || Array::placeholder(device, [0]);
        LbvhBuilder {
            device,
            bounds: z(),
            keys: z(),
            vals: z(),
            keys_out: z(),
            vals_out: z(),
            counts: z(),
            starts: z(),
            ends: z(),
            chunk_sums: z(),
            chunk_prefix: z(),
            group_sums: z(),
            left: z(),
            right: z(),
            parent: z(),
            pos: z(),
            visits: z(),
            winding: false,
            node_visits: z(),
            faces: usize::MAX,
        }
    }

    /// Whether [`LbvhBuilder::build`] and [`LbvhBuilder::rebuild`] also compute
    /// [`DeviceMesh::winding`] (one more launch: a thread per node, bottom-up), so
    /// that [`mesh_query_point`](super::mesh_query_point) and
    /// [`mesh_winding_number`](super::mesh_winding_number) can use far-field
    /// approximations instead of summing every face. Off by default: a tree
    /// rebuilt every step for ray casts and unsigned queries does not need it.
    pub fn set_winding(&mut self, on: bool) {
        self.winding = on;
    }

    /// Whether builds compute winding data ([`LbvhBuilder::set_winding`]).
    pub fn winding(&self) -> bool {
        self.winding
    }

    /// Refits the BVH of `mesh` after its points moved, on the mesh's device
    /// (which must be the builder's), keeping the tree's topology: rewrites the
    /// leaf-ordered corners ([`DeviceMesh::tris`]) and every node's box,
    /// bottom-up (one launch, a thread per node), and the winding data when the
    /// mesh has some or the builder computes it ([`LbvhBuilder::set_winding`]).
    /// Works for any tree (built on the host or the device); cheaper than
    /// [`LbvhBuilder::rebuild`], but the tree's quality degrades as the points
    /// move far from where it was built. The boxes are those the host's
    /// `weft_geom::Bvh::refit_mesh` computes, bit for bit. Allocates nothing once
    /// the builder has seen a tree of this size. Like `rebuild`, nothing is read
    /// back: vertex indices are those the build checked.
    ///
    /// Errors: a mesh on another device ([`Error::DeviceMismatch`]), or whose
    /// BVH arrays do not fit together (nodes, parents, prims, tris;
    /// [`Error::InvalidArgument`]); or the device's errors.
    pub fn refit(&mut self, mesh: &mut DeviceMesh) -> Result<(), Error> {
        let device = self.device;
        if mesh.points.device() != device {
            return Err(Error::DeviceMismatch {
                kernel: "LbvhBuilder::refit",
                first: "builder",
                first_device: device,
                other: "mesh",
                other_device: mesh.points.device(),
            });
        }
        let (n, nodes) = (mesh.num_faces(), mesh.nodes.len());
        if mesh.parents.len() != nodes || mesh.prims.len() != n || mesh.tris.len() != 3 * n {
            return Err(Error::InvalidArgument {
                what: "mesh BVH",
                message: format!(
                    "{nodes} nodes, {} parents, {} prims and {} leaf corners do not fit a tree over {n} faces",
                    mesh.parents.len(),
                    mesh.prims.len(),
                    mesh.tris.len()
                ),
            });
        }
        if n == 0 {
            return Ok(());
        }
        if self.node_visits.len() < nodes {
            self.node_visits = Array::try_zeros(device, [nodes])?;
        }
        self.node_visits.try_fill(0)?;
        mesh_refit::launch(
            nodes,
            &mesh.points,
            &mesh.faces,
            &mesh.prims,
            &mesh.parents,
            &mut self.node_visits,
            &mut mesh.nodes,
            &mut mesh.tris,
        )?;
        if self.winding || !mesh.winding.is_empty() {
            if mesh.winding.len() != nodes {
                mesh.winding = Array::try_zeros(device, [nodes])?;
            }
            self.fill_winding(mesh)?;
        }
        Ok(())
    }

    /// Computes `mesh.winding` (sized to its nodes) from its tree and `tris`.
    fn fill_winding(&mut self, mesh: &mut DeviceMesh) -> Result<(), Error> {
        self.node_visits.try_fill(0)?;
        winding_climb::launch(
            mesh.nodes.len(),
            &mesh.nodes,
            &mesh.parents,
            &mesh.tris,
            &mut self.node_visits,
            &mut mesh.winding,
        )
    }

    /// The device the builder builds on.
    pub fn device(&self) -> Device {
        self.device
    }

    /// A mesh of `points` and `faces` (three vertex indices per face) on the
    /// builder's device, with its BVH built there. The arrays are copied into the
    /// mesh. Before building, one launch checks every face and its result is read
    /// back (a synchronisation), so that bad input is an error, not a bad tree.
    ///
    /// Errors ([`Error::InvalidArgument`]): `faces.len()` not a multiple of 3, a
    /// vertex index not below `points.len()`, a face whose centroid is not finite
    /// (a NaN or infinite vertex), 2³⁰ faces or more; arrays on another device
    /// than the builder ([`Error::DeviceMismatch`]); or the device's errors. No
    /// faces give an empty mesh whose queries find nothing.
    pub fn build(&mut self, points: &Array<Vec3>, faces: &Array<u32>) -> Result<DeviceMesh, Error> {
        let device = self.device;
        for (name, d) in [("points", points.device()), ("faces", faces.device())] {
            if d != device {
                return Err(Error::DeviceMismatch {
                    kernel: "LbvhBuilder::build",
                    first: "builder",
                    first_device: device,
                    other: name,
                    other_device: d,
                });
            }
        }
        if !faces.len().is_multiple_of(3) {
            return Err(Error::InvalidArgument {
                what: "faces",
                message: format!(
                    "three vertex indices per face; got {} indices, not a multiple of 3",
                    faces.len()
                ),
            });
        }
        let n = faces.len() / 3;
        if n >= MAX_FACES || points.len() > i32::MAX as usize {
            return Err(Error::InvalidArgument {
                what: "mesh size",
                message: format!(
                    "a device BVH takes fewer than 2^30 faces and 2^31 points, got {n} faces and {} points",
                    points.len()
                ),
            });
        }
        let mut own_points = Array::try_zeros(device, [points.len()])?;
        own_points.copy_from(points)?;
        let mut own_faces = Array::try_zeros(device, [faces.len()])?;
        own_faces.copy_from(faces)?;
        let (nodes, prims, parents, tris) = empty_tree(device)?;
        let mut mesh = DeviceMesh {
            points: own_points,
            velocities: Array::try_zeros(device, [0])?,
            faces: own_faces,
            nodes,
            prims,
            parents,
            tris,
            winding: Array::try_zeros(device, [0])?,
        };
        if n > 0 {
            self.run(&mut mesh, true, &mut |_| Ok(()))?;
        }
        Ok(mesh)
    }

    /// Rebuilds the BVH of `mesh` from its current points (after a kernel moved
    /// them), on the mesh's device, which must be the builder's. Faces must be
    /// those of a mesh that [`LbvhBuilder::build`] (or [`DeviceMesh::new`]) checked:
    /// nothing is read back, so the launches stay asynchronous and a rebuild with
    /// the face count of the previous build allocates nothing. Bad input cannot
    /// make a kernel read out of bounds here (vertex indices are clamped), but gives
    /// a tree that misses faces. A mesh built on the host gets node arrays of the
    /// linear BVH's size (`2 n - 1`) at its first rebuild.
    pub fn rebuild(&mut self, mesh: &mut DeviceMesh) -> Result<(), Error> {
        if mesh.points.device() != self.device {
            return Err(Error::DeviceMismatch {
                kernel: "LbvhBuilder::rebuild",
                first: "builder",
                first_device: self.device,
                other: "mesh",
                other_device: mesh.points.device(),
            });
        }
        if mesh.num_faces() == 0 {
            if mesh.nodes.len() != 1 {
                (mesh.nodes, mesh.prims, mesh.parents, mesh.tris) = empty_tree(self.device)?;
            }
            if !mesh.winding.is_empty() {
                // Computed for the previous tree (an empty mesh needs none).
                mesh.winding = Array::try_zeros(self.device, [0])?;
            }
            return Ok(());
        }
        self.run(mesh, false, &mut |_| Ok(()))
    }

    /// [`LbvhBuilder::rebuild`] with a synchronisation after each stage: the
    /// seconds from the previous mark to each stage's end, summed per stage name
    /// (the sort's three stages run once per pass). For benchmarks; the
    /// synchronisations make the whole slower than a rebuild.
    #[doc(hidden)]
    pub fn rebuild_timed(
        &mut self,
        mesh: &mut DeviceMesh,
    ) -> Result<Vec<(&'static str, f64)>, Error> {
        let device = self.device;
        device.synchronize()?;
        let mut out: Vec<(&'static str, f64)> = Vec::new();
        let mut last = std::time::Instant::now();
        self.run(mesh, false, &mut |stage| {
            device.synchronize()?;
            let now = std::time::Instant::now();
            let dt = (now - last).as_secs_f64();
            last = now;
            match out.iter_mut().find(|(s, _)| *s == stage) {
                Some(e) => e.1 += dt,
                None => out.push((stage, dt)),
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// Sizes the scratch and the mesh's BVH arrays for its face count.
    fn reserve(&mut self, mesh: &mut DeviceMesh) -> Result<(), Error> {
        let device = self.device;
        let n = mesh.num_faces();
        let nodes = 2 * n - 1;
        if mesh.nodes.len() != nodes {
            mesh.nodes = Array::try_zeros(device, [nodes])?;
            mesh.parents = Array::try_zeros(device, [nodes])?;
        }
        if mesh.prims.len() != n {
            mesh.prims = Array::try_zeros(device, [n])?;
        }
        if mesh.tris.len() != 3 * n {
            mesh.tris = Array::try_zeros(device, [3 * n])?;
        }
        // Winding data for the new tree, or none (data of the previous tree would
        // be wrong for it).
        let winding = if self.winding { nodes } else { 0 };
        if mesh.winding.len() != winding {
            mesh.winding = Array::try_zeros(device, [winding])?;
        }
        if self.node_visits.len() < winding {
            self.node_visits = Array::try_zeros(device, [winding])?;
        }
        if self.faces == n {
            return Ok(());
        }
        let cells = TILE as usize * n.div_ceil(TILE as usize);
        let (_, chunks, groups, top) = scan_sizes(cells);
        self.bounds = Array::try_zeros(device, [GPU_SLOTS * 6 + 2])?;
        for a in [
            &mut self.keys,
            &mut self.vals,
            &mut self.keys_out,
            &mut self.vals_out,
        ] {
            *a = Array::try_zeros(device, [n])?;
        }
        for a in [&mut self.counts, &mut self.starts, &mut self.ends] {
            *a = Array::try_zeros(device, [cells])?;
        }
        self.chunk_sums = Array::try_zeros(device, [chunks])?;
        self.chunk_prefix = Array::try_zeros(device, [chunks])?;
        self.group_sums = Array::try_zeros(device, [groups + top])?;
        for a in [&mut self.left, &mut self.right, &mut self.visits] {
            grow(a, device, (n - 1).max(1))?;
        }
        grow(&mut self.parent, device, nodes)?;
        grow(&mut self.pos, device, nodes)?;
        self.faces = n;
        Ok(())
    }

    /// The exclusive (`starts`) and inclusive (`ends`) scan of `counts`; the
    /// kernel that filled `counts` zeroed `group_sums` from `groups` on.
    fn scan(&mut self) -> Result<(), Error> {
        scan_counts(
            &self.counts,
            &mut self.chunk_sums,
            &mut self.chunk_prefix,
            &mut self.group_sums,
            &mut self.starts,
            &mut self.ends,
        )
    }

    /// Every launch of a build of `mesh` (at least one face); with `check`, reads
    /// back the face checks after the first two and stops at a bad face.
    /// `mark` is called after each stage with its name.
    fn run(
        &mut self,
        mesh: &mut DeviceMesh,
        check: bool,
        mark: &mut Mark<'_>,
    ) -> Result<(), Error> {
        self.reserve(mesh)?;
        let n = mesh.num_faces();
        let cpu = self.device.is_cpu();
        let slots = if cpu { 1 } else { GPU_SLOTS };
        let stride = if cpu {
            n.min(256)
        } else {
            n.div_ceil(GPU_FACES_PER_THREAD)
        };
        lbvh_reset::launch(self.bounds.len(), &mut self.bounds)?;
        lbvh_bounds::launch(
            stride,
            &mesh.points,
            &mesh.faces,
            stride as i32,
            slots as i32,
            &mut self.bounds,
        )?;
        if check {
            let b = self.bounds.try_to_vec()?;
            check_faces(mesh, b[GPU_SLOTS * 6], b[GPU_SLOTS * 6 + 1])?;
        }
        if slots > 1 {
            lbvh_merge_slots::launch(6, &mut self.bounds, slots as i32)?;
        }
        mark("centroid box")?;
        lbvh_morton::launch(
            n,
            &mesh.points,
            &mesh.faces,
            &self.bounds,
            &mut self.keys,
            &mut self.vals,
        )?;
        mark("morton codes")?;
        self.sort(n, mark)?;
        let (_, _, groups, _) = scan_sizes(self.counts.len());
        if n > 1 {
            lbvh_hierarchy::launch(
                n - 1,
                &self.keys,
                n as i32,
                &mut self.left,
                &mut self.right,
                &mut self.parent,
                &mut self.visits,
            )?;
        }
        mark("hierarchy")?;
        lbvh_chain_len::launch(
            self.counts.len(),
            n as i32,
            &self.left,
            &self.parent,
            groups as i32,
            &mut self.counts,
            &mut self.group_sums,
        )?;
        self.scan()?;
        lbvh_chain_place::launch(
            n,
            n as i32,
            &self.left,
            &self.parent,
            &self.ends,
            &mut self.pos,
        )?;
        mark("node order")?;
        lbvh_nodes::launch(
            n,
            &mesh.points,
            &mesh.faces,
            &self.vals,
            &self.left,
            &self.right,
            &self.parent,
            &self.pos,
            &mut self.visits,
            &mut mesh.nodes,
            &mut mesh.prims,
            &mut mesh.parents,
            &mut mesh.tris,
        )?;
        mark("boxes")?;
        if self.winding {
            self.fill_winding(mesh)?;
            mark("winding")?;
        }
        Ok(())
    }

    /// Sorts `(keys, vals)` by key, stably, [`PASSES`] passes of [`RADIX_BITS`]
    /// bits; the result is left in `keys` and `vals`.
    fn sort(&mut self, n: usize, mark: &mut Mark<'_>) -> Result<(), Error> {
        let tiles = n.div_ceil(TILE as usize);
        let (_, _, groups, _) = scan_sizes(self.counts.len());
        for pass in 0..PASSES {
            let shift = pass * RADIX_BITS;
            lbvh_digit_counts::launch(
                self.counts.len(),
                &self.keys,
                n as i32,
                shift,
                tiles as i32,
                groups as i32,
                &mut self.counts,
                &mut self.group_sums,
            )?;
            mark("sort: digit counts")?;
            self.scan()?;
            mark("sort: scan")?;
            lbvh_scatter::launch(
                n,
                &self.keys,
                &self.vals,
                shift,
                tiles as i32,
                &self.starts,
                &mut self.keys_out,
                &mut self.vals_out,
            )?;
            mark("sort: scatter")?;
            std::mem::swap(&mut self.keys, &mut self.keys_out);
            std::mem::swap(&mut self.vals, &mut self.vals_out);
        }
        Ok(())
    }
}

/// The error for the first face with a bad vertex index (`bad_index`) or a
/// non-finite centroid (`bad_point`), `u32::MAX` for none.
fn check_faces(mesh: &DeviceMesh, bad_index: u32, bad_point: u32) -> Result<(), Error> {
    if bad_index != u32::MAX {
        let f = bad_index as usize;
        let faces = mesh.faces.try_to_vec()?;
        return Err(Error::InvalidArgument {
            what: "faces",
            message: format!(
                "face {f} has vertex indices {:?}, but there are only {} points",
                &faces[3 * f..3 * f + 3],
                mesh.points.len()
            ),
        });
    }
    if bad_point != u32::MAX {
        return Err(Error::InvalidArgument {
            what: "points",
            message: format!("face {bad_point} has a vertex that is not finite (NaN or infinite)"),
        });
    }
    Ok(())
}

impl DeviceMesh {
    /// A mesh of `points` and `faces` (three vertex indices per face) with its BVH
    /// and winding data built on their device ([`LbvhBuilder::build`] with a
    /// builder used once, [`LbvhBuilder::set_winding`] on; keep an [`LbvhBuilder`]
    /// to rebuild without allocating).
    pub fn build_on_device(points: &Array<Vec3>, faces: &Array<u32>) -> Result<Self, Error> {
        let mut builder = LbvhBuilder::new(points.device());
        builder.set_winding(true);
        builder.build(points, faces)
    }
}
