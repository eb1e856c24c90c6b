//! The joints of [`XpbdRigid`](super::XpbdRigid) on the host: the joints
//! (tree and loop) coloured once so that no two of a colour share a dynamic
//! body, and the launches of [`solve_joints`](super::joint_kernels::solve_joints)
//! (in place) or, while a tape records,
//! [`solve_joints_by_body`](super::joint_taped_kernels::solve_joints_by_body)
//! (out of place, a launch per colour).

use weft::{Array, IVec2, Transform, Vec4};

use super::joint_kernels::{eval_dof_start, solve_joints};
use super::joint_taped_kernels::solve_joints_by_body;
use crate::error::{Result, SimError};
use crate::{Control, Model};

/// The coloured joints and the drives' accumulated corrections.
pub(super) struct JointSolve {
    list: Array<i32>,
    start: Array<i32>,
    count: Array<i32>,
    /// Joints per colour (host copy of `count`).
    counts: Vec<i32>,
    lambda: Array<Vec4>,
    /// The tree joints' coordinates at the substep's start (see
    /// [`eval_dof_start`]), as long as `lambda`.
    x0: Array<f32>,
    /// Per colour and body, the body's joint in the colour or -1 (only
    /// dynamic bodies have one): the taped solve's launches.
    slot: Array<i32>,
}

impl JointSolve {
    /// The joints of `model` coloured greedily in their order (tree joints,
    /// then loop joints), or `None` when it has none.
    pub(super) fn new(model: &Model) -> Result<Option<JointSolve>> {
        let nj = model.joint_count();
        let nl = model.loop_joint_count();
        if nj + nl == 0 {
            return Ok(None);
        }
        refuse_ball_and_free_dynamics(model)?;
        let inv_mass = model.body_inv_mass.try_to_vec()?;
        let mut pairs: Vec<(i32, i32)> = model
            .joint_parent
            .try_to_vec()?
            .into_iter()
            .zip(model.joint_child.try_to_vec()?)
            .collect();
        pairs.extend(
            model
                .loop_joints
                .parent
                .try_to_vec()?
                .into_iter()
                .zip(model.loop_joints.child.try_to_vec()?),
        );
        let lists = color_joints(&pairs, &inv_mass);
        let n = inv_mass.len();
        let mut slot = vec![-1i32; lists.len() * n];
        for (c, joints) in lists.iter().enumerate() {
            for &e in joints {
                let (a, b) = pairs[e as usize];
                for x in [a, b] {
                    if x >= 0 && inv_mass[x as usize] > 0.0 {
                        slot[c * n + x as usize] = e;
                    }
                }
            }
        }
        let counts: Vec<i32> = lists.iter().map(|l| l.len() as i32).collect();
        let starts: Vec<i32> = counts
            .iter()
            .scan(0, |s, &c| {
                let at = *s;
                *s += c;
                Some(at)
            })
            .collect();
        let list: Vec<i32> = lists.concat();
        let device = model.device();
        let dofs = model.joint_dof_count() + model.loop_joints.axis.len();
        Ok(Some(JointSolve {
            list: Array::try_from_slice(device, &list)?,
            start: Array::try_from_slice(device, &starts)?,
            count: Array::try_from_slice(device, &counts)?,
            counts,
            lambda: Array::try_zeros(device, [dofs.max(1)])?,
            x0: Array::try_zeros(device, [dofs.max(1)])?,
            slot: Array::try_from_slice(device, &slot)?,
        }))
    }

    /// Number of colours.
    pub(super) fn colors(&self) -> usize {
        self.counts.len()
    }

    /// One pass over every joint, colour after colour, in place in `q` (`q0`:
    /// the poses at the substep's start; `first`: the substep's first pass,
    /// which evaluates the coordinates there).
    /// A CPU solves every colour on one thread in one launch (the same
    /// order); a GPU launches each colour with a thread per joint.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve(
        &mut self,
        model: &Model,
        control: &DriveInputs<'_>,
        h: f32,
        first: bool,
        q: &mut Array<Transform>,
        q0: &Array<Transform>,
    ) -> Result<()> {
        if first {
            self.eval_start(model, q0)?;
        }
        let launches: Vec<(IVec2, usize)> = if model.device().is_cpu() {
            vec![(IVec2::new(0, self.counts.len() as i32), 1)]
        } else {
            self.counts
                .iter()
                .enumerate()
                .map(|(c, &k)| (IVec2::new(c as i32, c as i32 + 1), k as usize))
                .collect()
        };
        for (colors, threads) in launches {
            solve_joints::launch(
                threads,
                model,
                &self.list,
                &self.start,
                &self.count,
                colors,
                threads as i32,
                control.target_pos,
                control.target_vel,
                control.effort,
                h,
                first,
                q,
                &self.x0,
                &mut self.lambda,
            )?;
        }
        Ok(())
    }
}

impl JointSolve {
    /// The tree joints' coordinates at the poses `q0` ([`eval_dof_start`]).
    fn eval_start(&mut self, model: &Model, q0: &Array<Transform>) -> Result<()> {
        let nj = model.joint_count();
        if nj > 0 {
            eval_dof_start::launch(nj, model, q0, &mut self.x0)?;
        }
        Ok(())
    }

    /// The tree joints' coordinates at a taped substep's start `q0`, in a
    /// fresh array for [`solve_taped`](Self::solve_taped).
    pub(super) fn start_taped(&self, model: &Model, q0: &Array<Transform>) -> Result<Array<f32>> {
        let mut x0 = Array::try_zeros(model.device(), [self.x0.len()])?;
        let nj = model.joint_count();
        if nj > 0 {
            eval_dof_start::launch(nj, model, q0, &mut x0)?;
        }
        Ok(x0)
    }

    /// Length of the drives' accumulated corrections (one `Vec4` per degree
    /// of freedom, tree joints' then loop joints'; at least 1).
    pub(super) fn lambda_len(&self) -> usize {
        self.lambda.len()
    }

    /// One pass over every joint while a tape records: colour after colour,
    /// each a launch with a thread per body from `q` into a fresh array (see
    /// [`solve_joints_by_body`]); returns the poses after. `x0`: the
    /// coordinates at the substep's start ([`start_taped`](Self::start_taped));
    /// `lam_in`: the last pass's accumulated
    /// corrections (unread when `first`), `lam_out`: this pass's (fresh,
    /// [`lambda_len`](Self::lambda_len) long).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn solve_taped(
        &self,
        model: &Model,
        control: &DriveInputs<'_>,
        h: f32,
        first: bool,
        q: Array<Transform>,
        x0: &Array<f32>,
        lam_in: &Array<Vec4>,
        lam_out: &mut Array<Vec4>,
    ) -> Result<Array<Transform>> {
        let n = model.body_count();
        let mut q = q;
        for group in 0..self.counts.len() {
            let mut next = Array::try_zeros(model.device(), [n])?;
            solve_joints_by_body::launch(
                n,
                model,
                &self.slot,
                group as i32,
                control.target_pos,
                control.target_vel,
                control.effort,
                h,
                first,
                &q,
                x0,
                lam_in,
                lam_out,
                &mut next,
            )?;
            q = next;
        }
        Ok(q)
    }
}

/// The drive targets and efforts a step uses: a [`Control`]'s, or the
/// model's where the control's arrays are empty (or there is no control).
pub(super) struct DriveInputs<'a> {
    target_pos: &'a Array<f32>,
    target_vel: &'a Array<f32>,
    effort: &'a Array<f32>,
}

impl<'a> DriveInputs<'a> {
    /// Picks each array from `control` or `model`; `Err` for a control array
    /// of the wrong length.
    pub(super) fn new(model: &'a Model, control: Option<&'a Control>) -> Result<DriveInputs<'a>> {
        let nd = model.joint_dof_count();
        let pick = |name: &'static str, c: Option<&'a Array<f32>>, m: &'a Array<f32>| match c {
            Some(a) if !a.is_empty() => {
                if a.len() != nd {
                    Err(SimError::Mismatch(format!(
                        "control.{name} has {} entries; the model has {nd} joint degrees of freedom",
                        a.len()
                    )))
                } else if a.device() != model.device() {
                    Err(SimError::Mismatch(format!(
                        "control.{name} is on {:?}, the model on {:?}",
                        a.device(),
                        model.device()
                    )))
                } else {
                    Ok(a)
                }
            }
            _ => Ok(m),
        };
        Ok(DriveInputs {
            target_pos: pick(
                "joint_target_pos",
                control.map(|c| &c.joint_target_pos),
                &model.joint_target_pos,
            )?,
            target_vel: pick(
                "joint_target_vel",
                control.map(|c| &c.joint_target_vel),
                &model.joint_target_vel,
            )?,
            effort: pick("joint_f", control.map(|c| &c.joint_f), &model.joint_f)?,
        })
    }
}

/// `Err` naming the first ball or free joint with damping, friction, a
/// drive or a cone limit: this solver has no coordinates to apply them to
/// (its per-degree-of-freedom rows need scalar angles), and dropping them
/// would simulate another robot.
fn refuse_ball_and_free_dynamics(model: &Model) -> Result<()> {
    let kind = model.joint_type.try_to_vec()?;
    let start = model.joint_qd_start.try_to_vec()?;
    let (ke, kd, damping, friction, upper) = (
        model.joint_target_ke.try_to_vec()?,
        model.joint_target_kd.try_to_vec()?,
        model.joint_damping.try_to_vec()?,
        model.joint_friction.try_to_vec()?,
        model.joint_limit_upper.try_to_vec()?,
    );
    for (j, &k) in kind.iter().enumerate() {
        if k != crate::JOINT_BALL && k != crate::JOINT_FREE {
            continue;
        }
        let dofs = start[j] as usize..start[j + 1] as usize;
        if dofs.clone().any(|d| {
            ke[d] != 0.0
                || kd[d] != 0.0
                || damping[d] != 0.0
                || friction[d] != 0.0
                || upper[d] != f32::INFINITY
        }) {
            return Err(SimError::InvalidJoint {
                index: j,
                name: String::new(),
                message: "XpbdRigid applies no drive, damping, friction or cone limit to ball and free joints yet; remove them or step with weft-articulation's FeatherstoneSolver".into(),
            });
        }
    }
    Ok(())
}

/// Greedy colouring of joints given as `(parent, child)` body pairs (-1 the
/// world): each joint takes the first colour that none of its dynamic bodies
/// (inverse mass > 0) has yet. Returns the joints (indices into `pairs`) of
/// each colour, in order.
fn color_joints(pairs: &[(i32, i32)], inv_mass: &[f32]) -> Vec<Vec<i32>> {
    let dynamic = |b: i32| b >= 0 && inv_mass[b as usize] > 0.0;
    let mut used: Vec<Vec<usize>> = vec![Vec::new(); inv_mass.len()];
    let mut lists: Vec<Vec<i32>> = Vec::new();
    for (e, &(a, b)) in pairs.iter().enumerate() {
        let taken = |c: usize| {
            [a, b]
                .iter()
                .any(|&x| dynamic(x) && used[x as usize].contains(&c))
        };
        let color = (0..).find(|&c| !taken(c)).expect("a free colour exists");
        for x in [a, b] {
            if dynamic(x) {
                used[x as usize].push(color);
            }
        }
        if lists.len() <= color {
            lists.resize(color + 1, Vec::new());
        }
        lists[color].push(e as i32);
    }
    lists
}

#[cfg(test)]
mod tests {
    use super::color_joints;

    #[test]
    fn a_chain_takes_two_colours_and_no_colour_shares_a_moving_body() {
        // world - 0 - 1 - 2 - 3, and a loop from 3 back to the world; body 4 static.
        let pairs = [(-1, 0), (0, 1), (1, 2), (2, 3), (3, -1), (4, 3)];
        let inv_mass = [1.0, 1.0, 1.0, 1.0, 0.0];
        let lists = color_joints(&pairs, &inv_mass);
        assert_eq!(lists, vec![vec![0, 2, 4], vec![1, 3], vec![5]]);
        for l in &lists {
            let mut bodies: Vec<i32> = l
                .iter()
                .flat_map(|&e| [pairs[e as usize].0, pairs[e as usize].1])
                .filter(|&b| b >= 0 && inv_mass[b as usize] > 0.0)
                .collect();
            let n = bodies.len();
            bodies.sort();
            bodies.dedup();
            assert_eq!(bodies.len(), n, "colour {l:?} shares a body");
        }
    }
}
