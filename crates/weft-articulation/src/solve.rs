//! Solving `(M + D) q̈ = r` per articulation, `D` a diagonal (armature and the
//! implicit parts of drives, damping and limits) plus, per ball joint, the
//! rank-one block `w wᵀ` on its three degrees of freedom (the implicit part
//! of its cone limit, see [`crate::ball_drives`]): a Cholesky factorisation in
//! f64 and the inverse from it, one thread per articulation, then one step of
//! iterative refinement `q̈ = x₀ + H⁻¹ (r − H x₀)` per degree of freedom.
//!
//! Gradients: a factorisation updates its factor in place, which the tape
//! refuses (its adjoint would replay over the overwritten values), so the
//! factorisation runs outside the tape ([`Tape::pause`]) and its results
//! `H⁻¹` and `x₀ = H⁻¹ r` enter the refinement as constants. The refinement's
//! derivatives are then those of the exact solve: `∂q̈/∂r = H⁻¹` and
//! `∂q̈/∂H = −H⁻¹ (·) x₀` (its derivative in `x₀`, `1 − H⁻¹ H`, vanishes). The
//! same step also repairs the f32 rounding of `M` in the solution.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use crate::dynamics::Kinematics;
use crate::{Result, layout::ArticulationLayout, scratch};

/// The joint of degree of freedom `i` of articulation `a`.
#[weft::func]
pub fn dof_joint(model: &Model, a: i32, i: i32) -> i32 {
    let mut j = model.articulation_start[a];
    while model.joint_qd_start[j + 1] <= i {
        j += 1;
    }
    j
}

/// `w_i w_k` where degrees of freedom `i` and `k` belong to the same ball
/// joint (the dofs of `j`, the joint of `i`), else 0; 0 for an empty `w`.
#[weft::func]
pub fn ball_block(model: &Model, w: &Array<f32>, j: i32, i: i32, k: i32) -> f64 {
    let mut x = 0.0f64;
    if w.len() > 0 && model.joint_type[j] == 2 {
        if k >= model.joint_qd_start[j] && k < model.joint_qd_start[j + 1] {
            x = (w[i] as f64) * (w[k] as f64);
        }
    }
    x
}

/// Factors `H = mass + diag(d) + W` (`W` the ball joints' blocks `w wᵀ`, see
/// [`ball_block`]) of articulation `tid()` as `L Lᵀ` (into `l`,
/// row-major, lower triangle), writes `H⁻¹` into `inv` and `H⁻¹ r` into `x0`.
/// A pivot that is not positive (a singular `H`: massless links without
/// armature) is clamped to 1e-30, so the solution blows up visibly.
#[weft::kernel]
pub fn factor_and_invert(
    model: &Model,
    m_start: &Array<i32>,
    mass: &Array<f32>,
    d: &Array<f32>,
    w: &Array<f32>,
    r: &Array<f32>,
    l: &mut Array<f64>,
    inv: &mut Array<f64>,
    x0: &mut Array<f64>,
) {
    let a = tid();
    let d0 = model.joint_qd_start[model.articulation_start[a]];
    let n = model.joint_qd_start[model.articulation_start[a + 1]] - d0;
    let base = m_start[a];
    for i in 0..n {
        let ji = dof_joint(model, a, d0 + i);
        for k in 0..i + 1 {
            let mut sum = mass[base + i * n + k] as f64 + ball_block(model, w, ji, d0 + i, d0 + k);
            if i == k {
                sum += d[d0 + i] as f64;
            }
            for p in 0..k {
                sum -= l[base + i * n + p] * l[base + k * n + p];
            }
            if i == k {
                l[base + i * n + i] = sqrt(max(sum, 1e-30));
            } else {
                l[base + i * n + k] = sum / l[base + k * n + k];
            }
        }
    }
    // Column c of H⁻¹: L y = e_c, then Lᵀ x = y (both in inv's column c).
    for c in 0..n {
        for i in 0..n {
            let mut sum = 0.0f64;
            if i == c {
                sum = 1.0;
            }
            for p in 0..i {
                sum -= l[base + i * n + p] * inv[base + p * n + c];
            }
            inv[base + i * n + c] = sum / l[base + i * n + i];
        }
        for ii in 0..n {
            let i = n - 1 - ii;
            let mut sum = inv[base + i * n + c];
            for p in i + 1..n {
                sum -= l[base + p * n + i] * inv[base + p * n + c];
            }
            inv[base + i * n + c] = sum / l[base + i * n + i];
        }
    }
    for i in 0..n {
        let mut sum = 0.0f64;
        for k in 0..n {
            sum += inv[base + i * n + k] * (r[d0 + k] as f64);
        }
        x0[d0 + i] = sum;
    }
}

/// The residual `r − (mass + diag(d) + W) x₀` of each degree of freedom
/// (`W` as in [`factor_and_invert`]).
#[weft::kernel]
pub fn eval_residual(
    model: &Model,
    m_start: &Array<i32>,
    dof_articulation: &Array<i32>,
    mass: &Array<f32>,
    d: &Array<f32>,
    w: &Array<f32>,
    r: &Array<f32>,
    x0: &Array<f64>,
    res: &mut Array<f64>,
) {
    let i = tid();
    let a = dof_articulation[i];
    let d0 = model.joint_qd_start[model.articulation_start[a]];
    let n = model.joint_qd_start[model.articulation_start[a + 1]] - d0;
    let row = m_start[a] + (i - d0) * n;
    let mut sum = (r[i] as f64) - (d[i] as f64) * x0[i];
    for k in 0..n {
        sum -= (mass[row + k] as f64) * x0[d0 + k];
    }
    if w.len() > 0 {
        let j = dof_joint(model, a, i);
        for k in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
            sum -= ball_block(model, w, j, i, k) * x0[k];
        }
    }
    res[i] = sum;
}

/// `q̈ = x₀ + H⁻¹ res` for each degree of freedom.
#[weft::kernel]
pub fn apply_refinement(
    model: &Model,
    m_start: &Array<i32>,
    dof_articulation: &Array<i32>,
    inv: &Array<f64>,
    x0: &Array<f64>,
    res: &Array<f64>,
    qdd: &mut Array<f32>,
) {
    let i = tid();
    let a = dof_articulation[i];
    let d0 = model.joint_qd_start[model.articulation_start[a]];
    let n = model.joint_qd_start[model.articulation_start[a + 1]] - d0;
    let row = m_start[a] + (i - d0) * n;
    let mut sum = x0[i];
    for k in 0..n {
        sum += inv[row + k] * res[d0 + k];
    }
    qdd[i] = sum as f32;
}

/// Subtracts the bias: `r = τ − C`, and sets the diagonal to the armature.
#[weft::kernel]
pub fn eval_rhs(
    model: &Model,
    tau: &Array<f32>,
    bias: &Array<f32>,
    r: &mut Array<f32>,
    d: &mut Array<f32>,
) {
    let i = tid();
    r[i] = tau[i] - bias[i];
    d[i] = model.joint_armature[i];
}

/// `q̈` from `(mass + diag(d) + W) q̈ = r`, every articulation (`W` the ball
/// joints' blocks `w wᵀ`; `w` may be empty; see the module docs).
pub(crate) fn solve(
    model: &Model,
    layout: &ArticulationLayout,
    mass: &Array<f32>,
    d: &Array<f32>,
    w: &Array<f32>,
    r: &Array<f32>,
) -> Result<Array<f32>> {
    let nd = model.joint_dof_count();
    let mut qdd = scratch::floats(model, nd)?;
    if nd == 0 {
        return Ok(qdd);
    }
    let device = model.device();
    let na = layout.articulation_count();
    let mut l = Array::<f64>::try_zeros(device, [layout.mass_len()])?;
    let mut inv = Array::<f64>::try_zeros(device, [layout.mass_len()])?;
    let mut x0 = Array::<f64>::try_zeros(device, [nd])?;
    Tape::pause(|| {
        factor_and_invert::launch(
            na,
            model,
            &layout.m_start,
            mass,
            d,
            w,
            r,
            &mut l,
            &mut inv,
            &mut x0,
        )
    })?;
    let mut res = scratch::doubles(model, nd)?;
    eval_residual::launch(
        nd,
        model,
        &layout.m_start,
        &layout.dof_articulation,
        mass,
        d,
        w,
        r,
        &x0,
        &mut res,
    )?;
    apply_refinement::launch(
        nd,
        model,
        &layout.m_start,
        &layout.dof_articulation,
        &inv,
        &x0,
        &res,
        &mut qdd,
    )?;
    Ok(qdd)
}

/// Forward dynamics: the accelerations `q̈ = (M + armature)⁻¹ (τ − C)` at
/// `(q, qd)` under gravity and efforts `tau` (one per degree of freedom),
/// as a new array. No drives, damping, friction or limits (the
/// [`FeatherstoneSolver`](crate::FeatherstoneSolver) adds those). Differentiable
/// through the tape.
pub fn forward_dynamics(
    model: &Model,
    layout: &ArticulationLayout,
    q: &Array<f32>,
    qd: &Array<f32>,
    tau: &Array<f32>,
) -> Result<Array<f32>> {
    crate::check_coords(model, q, qd)?;
    let nd = model.joint_dof_count();
    crate::check_len("tau", tau.len(), nd)?;
    layout.check(model)?;
    let kin = Kinematics::eval(model, q, qd)?;
    let zero = Array::try_zeros(model.device(), [nd])?;
    let none = Array::try_zeros(model.device(), [0])?;
    let bias = kin.efforts(model, &zero, &none)?;
    let mass = kin.mass_matrix(model, layout, &scratch::vec3s(model, 0)?)?;
    let mut r = scratch::floats(model, nd)?;
    let mut d = scratch::floats(model, nd)?;
    if nd > 0 {
        eval_rhs::launch(nd, model, tau, &bias, &mut r, &mut d)?;
    }
    solve(model, layout, &mass, &d, &scratch::floats(model, 0)?, &r)
}
