//! Penalty contacts of particles with the ground, the analytic shapes and the
//! static meshes (semi-implicit Euler), and between particles (DEM).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{
    BvhNode, DeviceHashGrid, DeviceMesh, HashGridQuery, closest_point_triangle, hash_grid_query,
    hash_grid_query_next, mesh_query_point_face,
};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use super::shapes::{contact_force, shape_sdf};
use crate::{Model, State};

/// Adds the contact forces of the ground, every shape and the meshes to each
/// particle.
#[weft::kernel]
pub fn eval_shape_contacts(model: &Model, state: &mut State) {
    let i = tid();
    if (model.particle_flags[i] & 1) != 0 {
        let x = state.particle_q[i];
        let v = state.particle_qd[i];
        let r = model.particle_radius[i];
        let ke = model.soft_contact_ke;
        let kd = model.soft_contact_kd;
        let kf = model.soft_contact_kf;
        let mut f = Vec3::ZERO;
        if model.ground {
            let g = model.ground_plane;
            let n = Vec3::new(g.x, g.y, g.z);
            let c = dot(n, x) + g.w - r;
            if c < 0.0 {
                f += contact_force(n, v, c, ke, kd, kf, model.ground_mu);
            }
        }
        for s in 0..model.shape_kind.len() {
            let xf = model.shape_transform[s];
            let local = quat_rotate_inv(xf.q, x - xf.p);
            let (d, nl) = shape_sdf(model.shape_kind[s], local, model.shape_scale[s]);
            let c = d - r;
            if c < 0.0 {
                let n = quat_rotate(xf.q, nl);
                f += contact_force(n, v, c, ke, kd, kf, model.shape_mu[s]);
            }
        }
        if model.mesh.faces.len() > 0 {
            let reach = r + model.mesh_thickness;
            let face = mesh_query_point_face(model.mesh, x, reach);
            if face >= 0 {
                let a = model.mesh.points[model.mesh.faces[3 * face]];
                let b = model.mesh.points[model.mesh.faces[3 * face + 1]];
                let cc = model.mesh.points[model.mesh.faces[3 * face + 2]];
                let (p, _w) = closest_point_triangle(x, a, b, cc);
                let fnrm = normalize(cross(b - a, cc - a));
                let dv = x - p;
                let dist = length(dv);
                let mut side = 1.0;
                if dot(dv, fnrm) < 0.0 {
                    side = -1.0;
                }
                let mut n = fnrm;
                if dist > 1.0e-7 {
                    n = dv * (side / dist);
                }
                let c = dist * side - reach;
                if c < 0.0 {
                    f += contact_force(n, v, c, ke, kd, kf, model.mesh_mu);
                }
            }
        }
        atomic_add(&mut state.particle_f[i], f);
    }
}

/// Adds the forces between touching particles (springs between overlapping
/// spheres with damping, friction and optional cohesion); `grid` must hold the
/// current positions with a cell size of at least twice the largest radius plus
/// the cohesion distance.
#[weft::kernel]
pub fn eval_particle_contacts(model: &Model, state: &mut State, grid: &DeviceHashGrid) {
    let i = tid();
    if (model.particle_flags[i] & 1) != 0 {
        let x = state.particle_q[i];
        let v = state.particle_qd[i];
        let r = model.particle_radius[i];
        let reach = r + model.particle_max_radius + model.particle_cohesion;
        let mut f = Vec3::ZERO;
        let mut q = hash_grid_query(grid, x, reach);
        while q.index >= 0 {
            let j = q.index;
            if j != i && (model.particle_flags[j] & 1) != 0 {
                let d = x - state.particle_q[j];
                let l = length(d);
                let err = l - r - model.particle_radius[j];
                if err <= model.particle_cohesion && l > 0.0 {
                    let n = d / l;
                    let vrel = v - state.particle_qd[j];
                    f += contact_force(
                        n,
                        vrel,
                        err - model.particle_cohesion,
                        model.particle_ke,
                        model.particle_kd,
                        model.particle_kf,
                        model.particle_mu,
                    );
                }
            }
            q = hash_grid_query_next(grid, q, x, reach);
        }
        atomic_add(&mut state.particle_f[i], f);
    }
}
