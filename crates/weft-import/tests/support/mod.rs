//! The committed MuJoCo/Pinocchio references and the robots as Weft models,
//! for the tests that compare them (see docs/notes/references.md for the
//! files' conventions).
#![allow(dead_code, unused_imports)] // each test binary uses a part

use weft::{Array, Device, Transform};
use weft_import::{ImportOptions, RobotDescription, RobotHandles, RobotOptions, add_robot, load};
use weft_sim::{Model, ModelBuilder};
use weft_testkit::references::repo_root;
pub use weft_testkit::references::{flat, matrix, reference, rel_max, to_f64, vector};

/// Each robot file and the reference file that belongs to it. `arm7.urdf` is
/// the same robot as `arm7.xml` (Pinocchio's URDF model agrees with MuJoCo's
/// to 1e-15); it has no sites.
pub const ROBOTS: [(&str, &str); 6] = [
    ("cartpole.xml", "cartpole"),
    ("double_pendulum.xml", "double_pendulum"),
    ("arm7.xml", "arm7"),
    ("arm7.urdf", "arm7"),
    ("ant.xml", "ant"),
    ("humanoid.xml", "humanoid"),
];

/// A robot as the references see it: contacts, limits, damping, friction,
/// springs and actuators off (docs/notes/references.md); armature kept.
pub fn reference_description(file: &str) -> RobotDescription {
    let mut d = load(
        format!("{}/assets/robots/{file}", repo_root()),
        &ImportOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    for j in &mut d.joints {
        j.damping = 0.0;
        j.friction = 0.0;
        j.stiffness = 0.0;
        j.limits = None;
        j.effort_limit = None;
    }
    d.actuators.clear();
    d
}

/// A robot alone in a model on the CPU, without ground, under the file's gravity.
pub struct Robot {
    pub description: RobotDescription,
    pub handles: RobotHandles,
    pub model: Model,
}

impl Robot {
    /// `file` (in assets/robots) as the references see it.
    pub fn load(file: &str) -> Robot {
        let description = reference_description(file);
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.gravity = description.options.gravity.as_vec3();
        let handles = add_robot(
            &mut b,
            &description,
            Transform::IDENTITY,
            &RobotOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{file}: {e}"));
        let model = b
            .finalize(Device::Cpu)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        Robot {
            description,
            handles,
            model,
        }
    }

    /// Weft's `joint_q` for MuJoCo's `qpos`.
    pub fn q(&self, qpos: &[f64]) -> Array<f32> {
        Array::from_vec(Device::Cpu, self.handles.weft_q(qpos))
    }

    /// Weft's `joint_qd` for MuJoCo's `qvel`.
    pub fn qd(&self, qvel: &[f64]) -> Array<f32> {
        Array::from_vec(Device::Cpu, self.handles.weft_qd(qvel))
    }
}
