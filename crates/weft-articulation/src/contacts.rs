//! Contacts of articulated links, for [`FeatherstoneSolver`](crate::FeatherstoneSolver):
//! the links' world poses and velocities at the step's coordinates, and each
//! contact's penalty wrench on the links it touches.
//!
//! The contact model is weft-sim's penalty model (the one
//! [`SemiImplicit`](weft_sim::SemiImplicit) uses for free bodies, see
//! `weft_sim::rigid::penalty`): a spring–damper along the normal (`ke`, an
//! approach-only `kd`, each the series combination of the two shapes'), and
//! Coulomb friction regularised as a viscous force `kf · v_slip` capped at
//! `μ f_n` (`μ` the mean of the two shapes'). The wrench on a link is a force
//! at its centre of mass and a torque (world), added to `state.body_f` before
//! recursive Newton–Euler, which maps it to joint efforts by `Jᵀ`. Smooth in
//! the coordinates and velocities, so rollouts through contact are
//! differentiable.
//!
//! Implicit by default ([`FeatherstoneSolver::implicit_contacts`](crate::FeatherstoneSolver)):
//! the spring and dampers act on the velocity at the end of the step
//! (backward Euler, [`implicit_contact_force`]), their damping joining each
//! touching body's inertia, so the robots of `assets/robots` run at their
//! files' steps (ant 10 ms, humanoid 5 ms) with the default materials.
//! Explicit (the option off), the step must resolve the contact spring:
//! `dt ≲ 2 / ω` with `ω = √(ke / m)` for the lightest link `m` that touches
//! (and `kd dt / m < 2`, `kf dt / m < 2` for the damper and the friction);
//! with the default materials (`ke = 1e5`, `kd = kf = 1e3` per shape,
//! halved in series) a 1 kg link needs `dt < 4 ms`. Between two links the
//! implicit damping of each assumes the other held still (each body's own
//! term; the coupling is explicit). Static friction is viscous: a link held
//! by friction under a tangential load `F` creeps at `F / kf` (raise `kf` to
//! hold it tighter). A link never collides with
//! its parent link (massless links between the axes of a multi-axis joint
//! are skipped), nor with another shape of its own body.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, ShapeSet};
use weft_sim::Model;
use weft_sim::kernels::shapes::contact_force;
use weft_sim::rigid::contact_math::{body_com_world, body_pose, contact_points, point_velocity};
use weft_sim::rigid::penalty::series;

/// World pose and velocity (centre-of-mass linear velocity, angular
/// velocity) of every body: for a joint's child from the articulation's
/// poses `link_q` and twists `v` (each joint's child-frame twist about the
/// frame's origin), for any other body `state_q`, `state_qd` as they are.
/// `body_joint[b]` is the joint whose child `b` is, or -1.
#[weft::kernel]
pub fn eval_link_states(
    model: &Model,
    body_joint: &Array<i32>,
    link_q: &Array<Transform>,
    v: &Array<SpatialVector>,
    state_q: &Array<Transform>,
    state_qd: &Array<SpatialVector>,
    q: &mut Array<Transform>,
    qd: &mut Array<SpatialVector>,
) {
    let b = tid();
    let j = body_joint[b];
    if j >= 0 {
        let x = link_q[b];
        let w = v[j].bottom;
        q[b] = x;
        qd[b] = SpatialVector::new(
            quat_rotate(x.q, v[j].top + cross(w, model.body_com[b])),
            quat_rotate(x.q, w),
        );
    } else {
        q[b] = state_q[b];
        qd[b] = state_qd[b];
    }
}

/// Adds each contact's penalty force and torque (about the centres of mass,
/// world) to both bodies' entries of `force` and `torque`, except contacts
/// between a link and its parent link (`body_parent[b]`: the nearest
/// ancestor of body `b` with mass, -1 for none).
#[weft::kernel]
pub fn eval_link_contacts(
    model: &Model,
    contacts: &Contacts,
    body_parent: &Array<i32>,
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    h: f32,
    force: &mut Array<Vec3>,
    torque: &mut Array<Vec3>,
    damp: &mut Array<Vec3>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
        let mut adjacent = false;
        if ba >= 0 {
            if bb >= 0 {
                if body_parent[ba] == bb {
                    adjacent = true;
                }
                if body_parent[bb] == ba {
                    adjacent = true;
                }
            }
        }
        let d = dot(n, pb - pa);
        if d < 0.0 {
            if !adjacent {
                let sa = contacts.shape_a[c];
                let sb = contacts.shape_b[c];
                let ke = series(model.rigid_shapes.ke[sa], model.rigid_shapes.ke[sb]);
                let kd = series(model.rigid_shapes.kd[sa], model.rigid_shapes.kd[sb]);
                let kf = series(model.rigid_shapes.kf[sa], model.rigid_shapes.kf[sb]);
                let mu = 0.5 * (model.rigid_shapes.mu[sa] + model.rigid_shapes.mu[sb]);
                // Where the force acts: midway along the normal, and on a
                // static shape at the moving link's point (as weft-sim's
                // penalty contacts, so the gradient follows re-detection).
                let mut p = (pa + pb) * 0.5;
                if ba < 0 {
                    p = pb - n * (d * 0.5);
                } else if bb < 0 {
                    p = pa + n * (d * 0.5);
                }
                let ra = p - body_com_world(model, ba, body_pose(q, ba));
                let rb = p - body_com_world(model, bb, body_pose(q, bb));
                let vrel = point_velocity(qd, bb, rb) - point_velocity(qd, ba, ra);
                let mut f = contact_force(n, vrel, d, ke, kd, kf, mu);
                if damp.len() > 0 {
                    let (fi, cn, ct) = implicit_contact_force(n, vrel, d, ke, kd, kf, mu, h);
                    f = fi;
                    let dm = (outer(n, n) * (cn - ct) + diag(Vec3::splat(ct))) * h;
                    if bb >= 0 {
                        add_point_damping(damp, bb, p - body_pose(q, bb).p, dm);
                    }
                    if ba >= 0 {
                        add_point_damping(damp, ba, p - body_pose(q, ba).p, dm);
                    }
                }
                if bb >= 0 {
                    atomic_add(&mut force[bb], f);
                    atomic_add(&mut torque[bb], cross(rb, f));
                }
                if ba >= 0 {
                    atomic_add(&mut force[ba], -f);
                    atomic_add(&mut torque[ba], cross(ra, -f));
                }
            }
        }
    }
}

/// The penalty contact force of [`contact_force`] made implicit in the
/// velocity for a step of `h` (backward Euler on the spring–damper): the
/// normal force `−ke (d + h vₙ⁺) − kd vₙ⁺` (`kd` while approaching), whose
/// part at the current relative velocity `v` is returned with the damping
/// coefficients `cₙ = h ke + kd` along `n` and `cₜ = kf` across it (zero
/// when the contact separates, and `cₜ` zero while sliding, where friction
/// is at its cap) that act on the velocity change.
#[weft::func]
pub fn implicit_contact_force(
    n: Vec3,
    v: Vec3,
    d: f32,
    ke: f32,
    kd: f32,
    kf: f32,
    mu: f32,
    h: f32,
) -> (Vec3, f32, f32) {
    let vn = dot(n, v);
    let mut cn = h * ke;
    if vn < 0.0 {
        cn += kd;
    }
    // Negative: pushing the bodies apart.
    let f_n = d * ke + cn * vn;
    let mut f = Vec3::ZERO;
    let mut ct = 0.0;
    if f_n < 0.0 {
        let vt = v - n * vn;
        let vs = length(vt);
        let cap = -f_n * mu;
        let mut ft = vs * kf;
        if ft < cap {
            ct = kf;
        } else {
            ft = cap;
        }
        f = n * (-f_n) - normalize(vt) * ft;
    } else {
        cn = 0.0;
    }
    (f, cn, ct)
}

/// Adds the damping `dm` (world; `h cₙ n nᵀ + h cₜ (1 − n nᵀ)` for a step
/// `h`) of a contact at `r` from body `b`'s frame origin (world axes) to the
/// body's 6 × 6 damping about its origin, world axes: blocks `A += D`,
/// `B += −D [r]×`, `C += −[r]× D [r]×`, stored as their columns at
/// `9b..9b + 9` of `damp` (read back by [`damping_blocks`]).
#[weft::func]
pub fn add_point_damping(damp: &mut Array<Vec3>, b: i32, r: Vec3, dm: Mat3) {
    let sr = skew(r);
    let bm = -(dm * sr);
    let cm = -(sr * dm * sr);
    for k in 0..3 {
        atomic_add(&mut damp[9 * b + k], dm.col(k));
        atomic_add(&mut damp[9 * b + 3 + k], bm.col(k));
        atomic_add(&mut damp[9 * b + 6 + k], cm.col(k));
    }
}

/// Body `b`'s damping blocks `(A, B, C)` of [`add_point_damping`].
#[weft::func]
pub fn damping_blocks(damp: &Array<Vec3>, b: i32) -> (Mat3, Mat3, Mat3) {
    let o = 9 * b;
    (
        Mat3::from_cols(damp[o], damp[o + 1], damp[o + 2]),
        Mat3::from_cols(damp[o + 3], damp[o + 4], damp[o + 5]),
        Mat3::from_cols(damp[o + 6], damp[o + 7], damp[o + 8]),
    )
}

/// Per body: which joint's child it is (-1: none), and its nearest ancestor
/// with mass (-1: none; massless links between the axes of a multi-axis
/// joint are passed over), from the model's joints.
pub(crate) fn body_tree(
    body_count: usize,
    joint_parent: &[i32],
    joint_child: &[i32],
    body_mass: &[f32],
) -> (Vec<i32>, Vec<i32>) {
    let mut joint = vec![-1i32; body_count];
    for (j, &c) in joint_child.iter().enumerate() {
        if c >= 0 {
            joint[c as usize] = j as i32;
        }
    }
    let direct = |b: i32| -> i32 {
        let j = joint[b as usize];
        if j >= 0 { joint_parent[j as usize] } else { -1 }
    };
    let parent = (0..body_count as i32)
        .map(|b| {
            let mut p = direct(b);
            // A massless link carries no shapes of its own (the importer's
            // intermediate axes): look through it.
            let mut guard = 0;
            while p >= 0 && body_mass[p as usize] <= 0.0 && guard < body_count {
                p = direct(p);
                guard += 1;
            }
            p
        })
        .collect();
    (joint, parent)
}

#[cfg(test)]
mod tests {
    use super::body_tree;

    #[test]
    fn parents_skip_massless_links() {
        // 0 (root, joint 0 from the world) ← 1 (massless) ← 2; 3 free of joints.
        let (joint, parent) = body_tree(4, &[-1, 0, 1], &[0, 1, 2], &[1.0, 0.0, 2.0, 1.0]);
        assert_eq!(joint, vec![0, 1, 2, -1]);
        assert_eq!(parent, vec![-1, 0, 0, -1]);
    }
}
