//! [`PhaseTimes`]: where a rigid solver's step spends its time.

use std::time::Instant;

use weft::Device;

use crate::error::Result;

/// Wall-clock seconds spent in each phase of the steps taken while a solver's
/// profiling was on, summed over those steps. Each phase ends with a device
/// synchronisation, so on a GPU a phase's time includes the host's launch
/// overhead of its kernels (a CUDA graph replays them with less) — use it to
/// see which phase dominates, and graph replays for the step time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Steps summed.
    pub steps: usize,
    /// Bounding boxes and candidate pairs.
    pub broad: f64,
    /// Contacts of the candidate pairs, grouped into manifolds.
    pub narrow: f64,
    /// Graph colouring of the manifolds.
    pub coloring: f64,
    /// Loading and storing the friction slip carried between steps.
    pub anchors: f64,
    /// Integrating the bodies, every substep.
    pub integrate: f64,
    /// The position passes over the manifolds, every substep.
    pub positions: f64,
    /// Velocities from positions and the velocity pass, every substep.
    pub velocities: f64,
}

impl PhaseTimes {
    /// The sum of the phases.
    pub fn total(&self) -> f64 {
        self.broad
            + self.narrow
            + self.coloring
            + self.anchors
            + self.integrate
            + self.positions
            + self.velocities
    }
}

/// Times phases one after the other when on; costs nothing when off.
pub(crate) struct PhaseClock {
    device: Device,
    on: bool,
    last: Instant,
}

impl PhaseClock {
    /// A clock started now (synchronising first when on).
    pub(crate) fn start(device: Device, on: bool) -> Result<PhaseClock> {
        if on {
            device.synchronize()?;
        }
        Ok(PhaseClock {
            device,
            on,
            last: Instant::now(),
        })
    }

    /// Adds the time since the last mark to `slot` (after a synchronisation).
    pub(crate) fn mark(&mut self, slot: &mut f64) -> Result<()> {
        if self.on {
            self.device.synchronize()?;
            let now = Instant::now();
            *slot += (now - self.last).as_secs_f64();
            self.last = now;
        }
        Ok(())
    }
}
