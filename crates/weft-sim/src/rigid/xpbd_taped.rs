//! [`XpbdRigid`]'s step while a tape records: the same solve, out of place.
//!
//! The plain step updates poses in place, colour after colour, which a tape
//! cannot differentiate (an adjoint replays its launch after later launches
//! have overwritten what it read). Here every colour (and every manifold of
//! the overflow colour, one by one) is a group, and each group is one launch
//! with a thread per body that writes that body's new pose (or velocity) into
//! a fresh array: the body's manifold in the group is solved by both of its
//! bodies' threads alike, and each thread keeps its own half. The order of the
//! manifolds, and so the result, is the plain step's: a taped step equals an
//! untaped one bit for bit (tested). Contacts and colours are found off the
//! tape (constants of the step, as in the plain step); the static friction
//! carried from the last step is gathered on the tape when that step was
//! taped too (`Anchors::load_taped`); gradients flow through the poses,
//! velocities, masses, inertias, materials and the carried slip.
//!
//! Joints are solved before the contacts in every pass, as in the plain
//! step, but out of place too: each joint colour is a launch with a thread
//! per body (`JointSolve::solve_taped`), and the
//! drives' accumulated corrections go from one pass's array into the next's.

use weft::{Array, SpatialVector, Tape};

use super::coloring::COLORS;
use super::integrate::integrate_bodies;
use super::joints::DriveInputs;
use super::xpbd::{XpbdRigid, collide_err};
use super::xpbd_kernels as k;
use super::xpbd_taped_kernels as t;
use crate::error::{Result, SimError};
use crate::{Model, State};

/// The most contacts a manifold may have in a taped step (its λ are kept in
/// two `Vec4`s: a local array carries no gradient).
pub(crate) const TAPED_MANIFOLD_CONTACTS: usize = 8;

impl XpbdRigid {
    /// [`simulate`](Self::simulate) while a tape records (see the module).
    pub(super) fn simulate_taped(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        drives: &DriveInputs<'_>,
        dt: f32,
    ) -> Result<()> {
        let (device, n) = (model.device(), model.body_count());
        self.pipeline
            .collide_moving(&model.rigid_shapes, &s_in.body_q, &s_in.body_qd, dt)
            .map_err(collide_err)?;
        let contacts = &self.pipeline.contacts;
        let manifolds = self.pipeline.manifolds();
        let nc = contacts.capacity();
        Tape::pause(|| self.coloring.run(model, contacts, manifolds))?;
        // Fresh per-manifold arrays, so launches of earlier taped steps that
        // read the last ones keep what they read.
        self.anchors.renew(device)?;
        self.anchors
            .load_taped(model, contacts, manifolds, &s_in.body_q)?;
        let (slot, groups) = self.groups(model)?;
        let h = dt / self.substeps as f32;
        let threshold = 2.0 * model.gravity.length() * h;
        let sweeps = self.sweeps as i32;
        let max_push = self.max_depenetration_speed * h;
        let mut q = s_in.body_q.share();
        let mut qd = s_in.body_qd.share();
        let mut lambda = Array::try_zeros(device, [nc])?;
        let joint_lambda_len = self.joints.as_ref().map_or(1, |j| j.lambda_len());
        let mut joint_lambda = Array::try_zeros(device, [joint_lambda_len])?;
        for _ in 0..self.substeps {
            let (q_prev, qd_prev) = (q, qd);
            let mut q_pred = Array::try_zeros(device, [n])?;
            let mut qd_pred = Array::try_zeros(device, [n])?;
            integrate_bodies::launch(
                n,
                model,
                &q_prev,
                &qd_prev,
                &s_in.body_f,
                h,
                &mut q_pred,
                &mut qd_pred,
            )?;
            if (groups == 0 && self.joints.is_none()) || self.iterations == 0 {
                // Nothing to solve: the plain step keeps the integrator's
                // velocities exactly (and a launch may not read one array
                // as two of its inputs under a tape).
                q = q_pred;
                qd = qd_pred;
                continue;
            }
            q = q_pred.share();
            let joint_x0 = match &self.joints {
                Some(j) => Some(j.start_taped(model, &q_prev)?),
                None => None,
            };
            for pass in 0..self.iterations {
                let (first, friction) = (pass == 0, pass + 1 == self.iterations);
                if let (Some(j), Some(x0)) = (&self.joints, &joint_x0) {
                    let lam_in = joint_lambda;
                    joint_lambda = Array::try_zeros(device, [joint_lambda_len])?;
                    q =
                        j.solve_taped(model, drives, h, first, q, x0, &lam_in, &mut joint_lambda)?;
                }
                let lambda_in = lambda;
                lambda = Array::try_zeros(device, [nc])?;
                for group in 0..groups {
                    let mut next = Array::try_zeros(device, [n])?;
                    t::solve_positions_by_body::launch(
                        n,
                        model,
                        contacts,
                        manifolds,
                        &slot,
                        group,
                        sweeps,
                        max_push,
                        first,
                        friction,
                        &q,
                        &s_in.body_q,
                        &self.anchors.carry,
                        &lambda_in,
                        &mut lambda,
                        &mut self.anchors.slid,
                        &mut next,
                    )?;
                    q = next;
                }
            }
            let mut v = Array::try_zeros(device, [n])?;
            k::velocities_from_positions::launch(n, model, &q_pred, &qd_pred, &q, h, &mut v)?;
            for group in 0..groups {
                let mut next = Array::try_zeros(device, [n])?;
                t::solve_velocities_by_body::launch(
                    n, model, contacts, manifolds, &slot, group, 2, &q, &v, &qd_prev, &lambda,
                    threshold, h, &mut next,
                )?;
                v = next;
            }
            qd = v;
        }
        self.anchors
            .store_taped(model, contacts, manifolds, &q, &s_in.body_q, &lambda)?;
        k::copy_body_state::launch(n, &q, &qd, &mut s_out.body_q, &mut s_out.body_qd)?;
        s_out
            .body_f
            .try_fill(SpatialVector::new(weft::Vec3::ZERO, weft::Vec3::ZERO))?;
        Ok(())
    }

    /// The groups of a taped step, read back from this step's colouring: every
    /// colour in use in order, then each manifold of the overflow colour on
    /// its own. Returns `slot` (per group and body, the body's manifold in the
    /// group or -1; only dynamic bodies have one) and the number of groups.
    fn groups(&self, model: &Model) -> Result<(Array<i32>, i32)> {
        let c = &self.coloring;
        let (count, start, list) = (
            c.count.try_to_vec()?,
            c.start.try_to_vec()?,
            c.list.try_to_vec()?,
        );
        let m = self.pipeline.manifolds();
        let (m_start, m_len, m_contacts) = (
            m.start.try_to_vec()?,
            m.len.try_to_vec()?,
            m.contacts.try_to_vec()?,
        );
        let contacts = &self.pipeline.contacts;
        let (shape_a, shape_b) = (
            contacts.shape_a.try_to_vec()?,
            contacts.shape_b.try_to_vec()?,
        );
        let body = model.rigid_shapes.body.try_to_vec()?;
        let inv_mass = model.body_inv_mass.try_to_vec()?;
        let mut groups: Vec<Vec<i32>> = Vec::new();
        for color in 0..=COLORS {
            let members = &list[start[color] as usize..][..count[color] as usize];
            if color < COLORS {
                if !members.is_empty() {
                    groups.push(members.to_vec());
                }
            } else {
                groups.extend(members.iter().map(|&m| vec![m]));
            }
        }
        let n = model.body_count();
        let mut slot = vec![-1i32; groups.len().max(1) * n];
        for (g, members) in groups.iter().enumerate() {
            for &mi in members {
                let mi_u = mi as usize;
                let len = m_len[mi_u] as usize;
                let c0 = m_contacts[m_start[mi_u] as usize] as usize;
                let (sa, sb) = (shape_a[c0] as usize, shape_b[c0] as usize);
                if len > TAPED_MANIFOLD_CONTACTS {
                    return Err(SimError::Mismatch(format!(
                        "a taped XpbdRigid step handles manifolds of at most \
                         {TAPED_MANIFOLD_CONTACTS} contacts; shapes {sa} and {sb} touch at {len} \
                         (a mesh): differentiate through SemiImplicit"
                    )));
                }
                for b in [body[sa], body[sb]] {
                    if b >= 0 && inv_mass[b as usize] > 0.0 {
                        slot[g * n + b as usize] = mi;
                    }
                }
            }
        }
        let slot = Array::try_from_slice(model.device(), &slot)?;
        Ok((slot, groups.len() as i32))
    }
}
