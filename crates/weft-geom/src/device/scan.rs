//! [`DeviceScan`]: prefix sums of a count array on its device, with the scratch
//! allocated once (the scan of the hash grid's and the LBVH's builds, for any
//! counts).

use super::grid_build::{scan_counts, scan_sizes};
use super::prelude::*;

/// Exclusive and inclusive prefix sums of `u32` counts on a device, in a few
/// launches that allocate nothing (capturable in a CUDA graph): a counting
/// sort's bucket starts, a compaction's output slots.
///
/// ```
/// use weft::prelude::*;
/// use weft::geom::DeviceScan;
///
/// let counts = Array::from_slice(Device::Cpu, &[3u32, 0, 2, 5]);
/// let mut starts = Array::zeros(Device::Cpu, [4]);
/// let mut ends = Array::zeros(Device::Cpu, [4]);
/// let mut scan = DeviceScan::new(Device::Cpu, 4)?;
/// scan.run(&counts, &mut starts, &mut ends)?;
/// assert_eq!(starts.to_vec(), [0, 3, 3, 5]);
/// assert_eq!(ends.to_vec(), [3, 3, 5, 10]);
/// # Ok::<(), weft::Error>(())
/// ```
pub struct DeviceScan {
    len: usize,
    chunk_sums: Array<u32>,
    chunk_prefix: Array<u32>,
    group_sums: Array<u32>,
}

impl DeviceScan {
    /// Scratch for scans of `len` counts on `device`.
    pub fn new(device: Device, len: usize) -> Result<DeviceScan, Error> {
        let (_, chunks, groups, top) = scan_sizes(len.max(1));
        Ok(DeviceScan {
            len,
            chunk_sums: Array::try_zeros(device, [chunks])?,
            chunk_prefix: Array::try_zeros(device, [chunks])?,
            group_sums: Array::try_zeros(device, [groups + top + 1])?,
        })
    }

    /// How many counts a scan takes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the scan takes no counts.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `starts[i]` = the sum of `counts[..i]`, `ends[i]` = that plus `counts[i]`.
    /// Errors: arrays of another length than [`DeviceScan::new`] was given
    /// ([`Error::InvalidArgument`]), or the device's.
    pub fn run(
        &mut self,
        counts: &Array<u32>,
        starts: &mut Array<u32>,
        ends: &mut Array<u32>,
    ) -> Result<(), Error> {
        if counts.len() != self.len || starts.len() != self.len || ends.len() != self.len {
            return Err(Error::InvalidArgument {
                what: "scan lengths",
                message: format!(
                    "the scan was made for {} counts, got counts {}, starts {}, ends {}",
                    self.len,
                    counts.len(),
                    starts.len(),
                    ends.len()
                ),
            });
        }
        if self.len == 0 {
            return Ok(());
        }
        self.group_sums.try_fill(0)?;
        scan_counts(
            counts,
            &mut self.chunk_sums,
            &mut self.chunk_prefix,
            &mut self.group_sums,
            starts,
            ends,
        )
    }
}
