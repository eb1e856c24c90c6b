//! The mass matrix, inverse and forward dynamics on a tree with every joint
//! kind (two articulations in one model): symmetry and positive
//! definiteness, agreement of the composite-rigid-body matrix with recursive
//! Newton–Euler and with the bodies' kinetic energy, and RNEA(FD(τ)) = τ.

mod common;

use common::{G, Rng, energy, mixed_model, random_dofs, random_q};
use weft::{Array, Device};
use weft_articulation::{
    ArticulationLayout, bias_forces, eval_fk, forward_dynamics, inverse_dynamics, mass_matrix,
};
use weft_sim::State;

fn arr(v: &[f32]) -> Array<f32> {
    Array::from_slice(Device::Cpu, v)
}

/// Cholesky in f64: whether `m` (n × n, row-major) is positive definite, and
/// its smallest pivot.
fn smallest_pivot(m: &[f32], n: usize) -> f64 {
    let mut l = vec![0.0f64; n * n];
    let mut smallest = f64::INFINITY;
    for i in 0..n {
        for k in 0..=i {
            let mut s = m[i * n + k] as f64;
            for p in 0..k {
                s -= l[i * n + p] * l[k * n + p];
            }
            if i == k {
                smallest = smallest.min(s);
                l[i * n + i] = s.max(1e-300).sqrt();
            } else {
                l[i * n + k] = s / l[k * n + k];
            }
        }
    }
    smallest
}

#[test]
fn mass_matrix_is_symmetric_positive_definite_and_matches_rnea_and_energy() {
    let model = mixed_model(Device::Cpu, G);
    let layout = ArticulationLayout::new(&model).unwrap();
    let nd = model.joint_dof_count();
    let mut rng = Rng(3);
    let (mut asym, mut col_err, mut ke_err, mut pivot) = (0.0f32, 0.0f32, 0.0f64, f64::INFINITY);
    for _ in 0..10 {
        let q = random_q(&model, &mut rng);
        let m = mass_matrix(&model, &layout, &arr(&q)).unwrap().to_vec();
        let zero = arr(&vec![0.0; nd]);
        let c0 = inverse_dynamics(&model, &arr(&q), &zero, &zero)
            .unwrap()
            .to_vec();
        for a in 0..layout.articulation_count() {
            let (dofs, block) = (layout.dofs(a), &m[layout.mass_range(a)]);
            let n = dofs.len();
            for i in 0..n {
                for k in 0..n {
                    asym = asym.max((block[i * n + k] - block[k * n + i]).abs());
                }
            }
            pivot = pivot.min(smallest_pivot(block, n));
            // Column k of M is RNEA(q, 0, e_k) − RNEA(q, 0, 0).
            for k in dofs.clone() {
                let mut e = vec![0.0f32; nd];
                e[k] = 1.0;
                let tau = inverse_dynamics(&model, &arr(&q), &zero, &arr(&e))
                    .unwrap()
                    .to_vec();
                for i in dofs.clone() {
                    let want = block[(i - dofs.start) * n + k - dofs.start];
                    col_err = col_err.max((tau[i] - c0[i] - want).abs() / want.abs().max(1.0));
                }
            }
        }
        // ½ q̇ᵀ M q̇ is the bodies' kinetic energy.
        let qd = random_dofs(&model, &mut rng, 1.5);
        let mut s = State::new(&model).unwrap();
        s.joint_q = arr(&q);
        s.joint_qd = arr(&qd);
        eval_fk(&model, &mut s).unwrap();
        let (ke, _) = energy(&model, &s, G);
        let mut quad = 0.0f64;
        for a in 0..layout.articulation_count() {
            let (dofs, block) = (layout.dofs(a), &m[layout.mass_range(a)]);
            let n = dofs.len();
            for i in 0..n {
                for k in 0..n {
                    quad +=
                        0.5 * (qd[dofs.start + i] * block[i * n + k] * qd[dofs.start + k]) as f64;
                }
            }
        }
        ke_err = ke_err.max((quad - ke).abs() / ke);
    }
    println!(
        "M(q) over 10 random states: asymmetry {asym:.1e}, smallest Cholesky pivot {pivot:.3e}, \
         columns vs RNEA {col_err:.2e} (relative), ½q̇ᵀMq̇ vs body kinetic energy {ke_err:.2e} (relative)"
    );
    assert_eq!(asym, 0.0, "the kernel writes both triangles with one value");
    assert!(pivot > 1e-4, "not positive definite: pivot {pivot}");
    assert!(col_err < 1e-4, "{col_err}");
    assert!(ke_err < 1e-5, "{ke_err}");
}

/// Relative to the size of the terms summed, `max(|τ_i|, Σ_k |M_ik q̈_k|, 1)`:
/// accelerations reach several hundred rad/s² on the light links, where the
/// terms of `M q̈` and `C` are much larger than `τ` and cancel, and f32
/// rounding of them is what remains.
#[test]
fn inverse_dynamics_inverts_forward_dynamics() {
    let model = mixed_model(Device::Cpu, G);
    let layout = ArticulationLayout::new(&model).unwrap();
    let mut rng = Rng(5);
    let (mut worst, mut worst_plain) = (0.0f32, 0.0f32);
    for _ in 0..20 {
        let q = arr(&random_q(&model, &mut rng));
        let qd = arr(&random_dofs(&model, &mut rng, 2.0));
        let tau = random_dofs(&model, &mut rng, 5.0);
        let qdd = forward_dynamics(&model, &layout, &q, &qd, &arr(&tau)).unwrap();
        let back = inverse_dynamics(&model, &q, &qd, &qdd).unwrap().to_vec();
        let (m, a) = (
            mass_matrix(&model, &layout, &q).unwrap().to_vec(),
            qdd.to_vec(),
        );
        for art in 0..layout.articulation_count() {
            let (dofs, block) = (layout.dofs(art), &m[layout.mass_range(art)]);
            let n = dofs.len();
            for i in dofs.clone() {
                let ma: f32 = (0..n)
                    .map(|k| (block[(i - dofs.start) * n + k] * a[dofs.start + k]).abs())
                    .sum();
                let err = (tau[i] - back[i]).abs();
                worst = worst.max(err / tau[i].abs().max(ma.abs()).max(1.0));
                worst_plain = worst_plain.max(err / tau[i].abs().max(1.0));
            }
        }
    }
    println!(
        "RNEA(q, q̇, FD(q, q̇, τ)) vs τ over 20 random states: worst error {worst:.2e} relative to \
         max(|τ|, Σ|M q̈|, 1) ({worst_plain:.2e} relative to max(|τ|, 1))"
    );
    assert!(worst < 1e-4, "{worst}");
}

/// With no effort, forward dynamics gives the accelerations that make
/// RNEA's efforts vanish — and at rest the bias is gravity alone: holding
/// the joints against gravity takes `C(q, 0)`, which must not depend on q̇.
#[test]
fn bias_at_rest_is_gravity_only() {
    let model = mixed_model(Device::Cpu, G);
    let mut rng = Rng(9);
    let q = arr(&random_q(&model, &mut rng));
    let nd = model.joint_dof_count();
    let c = bias_forces(&model, &q, &arr(&vec![0.0; nd]))
        .unwrap()
        .to_vec();
    let weightless = mixed_model(Device::Cpu, 0.0);
    let c0 = bias_forces(&weightless, &q, &arr(&vec![0.0; nd]))
        .unwrap()
        .to_vec();
    assert!(c0.iter().all(|x| x.abs() < 1e-6), "{c0:?}");
    // The free base carries the whole weight: its vertical force is m_total g.
    let total: f32 = model.body_mass.to_vec()[..7].iter().sum();
    println!("base's vertical bias {} vs m g = {}", c[2], total * G);
    assert!((c[2] - total * G).abs() < 1e-4 * total * G, "{}", c[2]);
}
