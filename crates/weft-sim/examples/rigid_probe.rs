//! Quick probe of the rigid solver's settings on a tower and an incline
//! (development tool: `cargo run -p weft-sim --example rigid_probe -- SUBSTEPS ITERS RELAX`).

use weft::prelude::*;
use weft_collide::{Geometry, Material, ShapeDesc};
use weft_sim::{BodyDesc, ModelBuilder, State, XpbdRigid};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let sub: usize = a.get(1).map_or(8, |s| s.parse().unwrap());
    let it: usize = a.get(2).map_or(1, |s| s.parse().unwrap());
    let relax: f32 = a.get(3).map_or(1.0, |s| s.parse().unwrap());
    // Tower.
    let h = 0.05;
    let mut b = ModelBuilder::new();
    for k in 0..10 {
        let body = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(
            0.0,
            0.0,
            h + 2.0 * h * k as f32,
        )))) as i32;
        b.add_body_shape(
            body,
            Transform::IDENTITY,
            Geometry::Box {
                half_extents: Vec3::splat(h),
            },
        );
    }
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    solver.substeps = sub;
    solver.iterations = it;
    solver.relaxation = relax;
    let (mut s0, mut s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    for step in 0..600 {
        solver
            .simulate(&model, &mut s0, &mut s1, 1.0 / 60.0)
            .unwrap();
        std::mem::swap(&mut s0, &mut s1);
        if step % 100 == 99 {
            let q = s0.body_q.to_vec();
            println!(
                "t={:.1}s tower top z {:.4} (0.95) x {:.4}, bottom z {:.4}",
                (step + 1) as f32 / 60.0,
                q[9].p.z,
                q[9].p.x,
                q[0].p.z
            );
        }
    }
    // Incline.
    let angle = 20f32.to_radians();
    let mut b = ModelBuilder::new();
    b.ground = None;
    let tilt = Quat::from_rotation_y(angle);
    let m = Material {
        mu: 0.5,
        mu_static: 0.5,
        ..Material::default()
    };
    let mut plane = ShapeDesc::new(
        -1,
        Transform::new(Vec3::ZERO, tilt),
        Geometry::Plane {
            half_extents: Vec2::ZERO,
        },
    );
    plane.material = m;
    b.add_rigid_shape(plane);
    let start = tilt * Vec3::Z * 0.05;
    let body = b.add_body(BodyDesc::new(Transform::new(start, tilt))) as i32;
    b.add_body_shape_with(
        body,
        Transform::IDENTITY,
        Geometry::Box {
            half_extents: Vec3::splat(0.05),
        },
        m,
    );
    let model = b.finalize(Device::Cpu).unwrap();
    let mut solver = XpbdRigid::new(&model, Default::default()).unwrap();
    solver.substeps = sub;
    solver.iterations = it;
    solver.relaxation = relax;
    let (mut s0, mut s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    for step in 0..120 {
        solver
            .simulate(&model, &mut s0, &mut s1, 1.0 / 120.0)
            .unwrap();
        std::mem::swap(&mut s0, &mut s1);
        if step % 20 == 19 {
            let x = s0.body_q.to_vec()[0];
            let v = s0.body_qd.to_vec()[0];
            println!(
                "incline t={:.2} drift {:.3} mm v {:?} w {:?} contacts {}",
                (step + 1) as f32 / 120.0,
                (x.p - start).dot(tilt * Vec3::X) * 1e3,
                v.top,
                v.bottom,
                solver.contact_report().unwrap().found
            );
        }
    }
}
