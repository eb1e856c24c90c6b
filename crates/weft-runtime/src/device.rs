//! Where arrays live and kernels run.

use std::fmt;
use std::sync::OnceLock;

use crate::{Error, cuda};

/// A compute device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Device {
    /// The host CPU: kernels run natively, in parallel over the launch grid with rayon.
    #[default]
    Cpu,
    /// The CUDA GPU with the given ordinal (see [`Device::cuda`] for a checked
    /// constructor and [`crate::cuda`] for the back end).
    Cuda(usize),
}

impl Device {
    /// The CPU device.
    pub fn cpu() -> Device {
        Device::Cpu
    }

    /// CUDA device `ordinal`, if a driver is present and the device exists; else an
    /// [`Error::Cuda`] saying why (no `libcuda.so`, no such ordinal, ...).
    pub fn cuda(ordinal: usize) -> Result<Device, Error> {
        let n = cuda::device_count()?;
        if ordinal < n {
            Ok(Device::Cuda(ordinal))
        } else {
            Err(Error::Cuda {
                what: format!("Device::cuda({ordinal})"),
                reason: format!(
                    "no such device: {n} CUDA device{} present",
                    if n == 1 { " is" } else { "s are" }
                ),
            })
        }
    }

    /// The best device available: `Device::Cuda(0)` when a CUDA driver and GPU are
    /// present, else the CPU. Probed once; never panics. The choice is returned so
    /// callers can report it (`Display` gives `cpu` or `cuda:0`);
    /// [`cuda::skip_reason`] says why no GPU was chosen.
    pub fn best() -> Device {
        static BEST: OnceLock<Device> = OnceLock::new();
        *BEST.get_or_init(|| {
            if cuda::is_available() {
                Device::Cuda(0)
            } else {
                Device::Cpu
            }
        })
    }

    /// Whether this is the CPU.
    pub fn is_cpu(self) -> bool {
        self == Device::Cpu
    }

    /// Whether this is a CUDA device.
    pub fn is_cuda(self) -> bool {
        matches!(self, Device::Cuda(_))
    }

    /// Waits for all work queued on the device (nothing to wait for on the CPU,
    /// whose launches are synchronous). On a GPU this also reports asynchronous
    /// errors, and [`Error::OutOfBounds`] if a bounds-checked kernel indexed out of
    /// range since the last synchronisation.
    pub fn synchronize(self) -> Result<(), Error> {
        match self {
            Device::Cpu => Ok(()),
            Device::Cuda(i) => cuda::synchronize(i),
        }
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
