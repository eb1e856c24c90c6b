//! What the device geometry's files import: the kernel attributes, the runtime's
//! arrays and devices, and the value types its kernels use.

pub use weft_macros::{func, kernel, structure};
pub use weft_runtime::{Array, Device, Error};
pub use weft_types::{IVec3, Mat3, UVec2, Vec3, Vec4};
