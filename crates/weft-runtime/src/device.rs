//! Where arrays live and kernels run.

use std::fmt;

use crate::Error;

/// A compute device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// The host CPU: kernels run natively, in parallel over the launch grid with rayon.
    #[default]
    Cpu,
    /// CUDA GPU with the given ordinal (the CUDA back end is not available yet).
    Cuda(usize),
}

impl Device {
    /// The CPU device.
    pub fn cpu() -> Device {
        Device::Cpu
    }

    /// The best device available: a GPU once the CUDA back end exists, else the CPU.
    /// Never panics; the choice is returned so callers can report it.
    pub fn best() -> Device {
        Device::Cpu
    }

    /// Whether this is the CPU.
    pub fn is_cpu(self) -> bool {
        self == Device::Cpu
    }

    /// The single device shared by all arrays of a launch of `kernel`; the CPU if
    /// there are no arrays.
    pub fn common(
        kernel: &'static str,
        devices: &[(&'static str, Device)],
    ) -> Result<Device, Error> {
        let Some(&(first_name, first)) = devices.first() else {
            return Ok(Device::Cpu);
        };
        for &(name, d) in &devices[1..] {
            if d != first {
                return Err(Error::DeviceMismatch {
                    kernel,
                    first: first_name,
                    first_device: first,
                    other: name,
                    other_device: d,
                });
            }
        }
        Ok(first)
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => write!(f, "cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}
