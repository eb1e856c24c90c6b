//! Eigendecomposition of a symmetric 3×3 matrix by cyclic Jacobi rotations.

// Row/column index arithmetic reads more plainly than iterator chains here.
#![allow(clippy::needless_range_loop)]

use glam::{DMat3, DVec3};

/// Eigenvalues (ascending) and a rotation (det +1) whose columns are the matching
/// unit eigenvectors: `m = r · diag(values) · rᵀ`.
pub(crate) fn symmetric_eigen(m: DMat3) -> (DVec3, DMat3) {
    // Symmetrized (the caller's matrix may carry rounding).
    let m = (m + m.transpose()) * 0.5;
    let mut a = [
        m.x_axis.to_array(),
        m.y_axis.to_array(),
        m.z_axis.to_array(),
    ];
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0f64]];
    let scale = a.iter().flatten().map(|x| x.abs()).fold(0.0, f64::max);
    for _sweep in 0..50 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1e-15 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation that zeroes a[p][q] (Numerical Recipes' stable form).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            for k in 0..3 {
                let (akp, akq) = (a[k][p], a[k][q]);
                a[k][p] = c * akp - s * akq;
                a[k][q] = s * akp + c * akq;
            }
            for k in 0..3 {
                let (apk, aqk) = (a[p][k], a[q][k]);
                a[p][k] = c * apk - s * aqk;
                a[q][k] = s * apk + c * aqk;
            }
            // v[col][row]: its columns gather the rotations, i.e. the eigenvectors.
            for k in 0..3 {
                let (vkp, vkq) = (v[p][k], v[q][k]);
                v[p][k] = c * vkp - s * vkq;
                v[q][k] = s * vkp + c * vkq;
            }
        }
    }
    let mut order = [0usize, 1, 2];
    order.sort_by(|&i, &j| a[i][i].total_cmp(&a[j][j]));
    let values = DVec3::new(
        a[order[0]][order[0]],
        a[order[1]][order[1]],
        a[order[2]][order[2]],
    );
    let mut r = DMat3::from_cols(
        DVec3::from_array(v[order[0]]),
        DVec3::from_array(v[order[1]]),
        DVec3::from_array(v[order[2]]),
    );
    if r.determinant() < 0.0 {
        r.z_axis = -r.z_axis;
    }
    (values, r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DQuat;

    #[test]
    fn reconstructs_a_rotated_diagonal_matrix() {
        let rot = DMat3::from_quat(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
        let d = DMat3::from_diagonal(DVec3::new(5.0, 1.0, 3.0));
        let m = rot * d * rot.transpose();
        let (values, r) = symmetric_eigen(m);
        assert!((values - DVec3::new(1.0, 3.0, 5.0)).abs().max_element() < 1e-12);
        let back = r * DMat3::from_diagonal(values) * r.transpose();
        assert!((back - m).to_cols_array().iter().all(|x| x.abs() < 1e-12));
        assert!((r.determinant() - 1.0).abs() < 1e-12);
        // Eigenvector of the smallest value is the rotated y axis (up to sign).
        assert!((r.x_axis.dot(rot.y_axis).abs() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn repeated_and_zero_eigenvalues() {
        let (values, r) = symmetric_eigen(DMat3::from_diagonal(DVec3::new(2.0, 2.0, 0.0)));
        assert_eq!(values, DVec3::new(0.0, 2.0, 2.0));
        assert!((r.determinant() - 1.0).abs() < 1e-12);
    }
}
