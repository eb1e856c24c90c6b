//! Intermediate arrays: zeroed, on the model's device, and with gradients
//! while a tape records (so gradients flow through them).

use weft::prelude::*;
use weft_sim::Model;

use crate::Result;

macro_rules! zeros_of {
    ($($(#[$doc:meta])* $name:ident: $t:ty;)*) => {$(
        $(#[$doc])*
        pub(crate) fn $name(model: &Model, n: usize) -> Result<Array<$t>> {
            let a = Array::try_zeros(model.device(), [n])?;
            Ok(if Tape::is_recording() { a.requires_grad() } else { a })
        }
    )*};
}

zeros_of! {
    /// `n` floats.
    floats: f32;
    /// `n` doubles.
    doubles: f64;
    /// `n` vectors.
    vec3s: Vec3;
    /// `n` matrices.
    mat3s: Mat3;
    /// `n` spatial vectors.
    vectors: SpatialVector;
    /// `n` transforms.
    transforms: Transform;
}

/// One spatial vector per degree of freedom.
pub(crate) fn dof_vectors(model: &Model) -> Result<Array<SpatialVector>> {
    vectors(model, model.joint_dof_count())
}

/// One spatial vector per joint.
pub(crate) fn joint_vectors(model: &Model) -> Result<Array<SpatialVector>> {
    vectors(model, model.joint_count())
}

/// One transform per joint.
pub(crate) fn joint_transforms(model: &Model) -> Result<Array<Transform>> {
    transforms(model, model.joint_count())
}

/// One pose per body.
pub(crate) fn poses(model: &Model) -> Result<Array<Transform>> {
    transforms(model, model.body_count())
}
