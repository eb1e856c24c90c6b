//! Events on a device's stream, for timing and waiting.

use cudarc::driver::{CudaEvent, sys};

use super::context::{Dev, device};
use super::driver::err;
use crate::Error;

/// A point in a CUDA device's stream: record it after some work, then wait for it
/// or measure the time between two events.
///
/// ```no_run
/// # fn main() -> Result<(), weft_runtime::Error> {
/// use weft_runtime::cuda::Event;
/// let (start, end) = (Event::new(0)?, Event::new(0)?);
/// start.record()?;
/// // ... launches on cuda:0 ...
/// end.record()?;
/// end.synchronize()?;
/// println!("{:.3} ms", start.elapsed_ms(&end)?);
/// # Ok(()) }
/// ```
pub struct Event {
    dev: &'static Dev,
    event: CudaEvent,
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Event(cuda:{})", self.dev.ordinal)
    }
}

impl Event {
    /// A timing event on CUDA device `ordinal`.
    pub fn new(ordinal: usize) -> Result<Event, Error> {
        let dev = device(ordinal)?;
        let event = dev
            .ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(|e| err(format!("create an event on cuda:{ordinal}"), e))?;
        Ok(Event { dev, event })
    }

    /// Records the event after the work queued so far on the device's stream.
    pub fn record(&self) -> Result<(), Error> {
        self.dev.bind()?;
        self.event
            .record(&self.dev.stream)
            .map_err(|e| err(format!("record an event on cuda:{}", self.dev.ordinal), e))
    }

    /// Waits until the work before the last [`Event::record`] has finished.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.event
            .synchronize()
            .map_err(|e| err(format!("wait for an event on cuda:{}", self.dev.ordinal), e))
    }

    /// Milliseconds between this event and a later one `end` (both recorded and
    /// complete).
    pub fn elapsed_ms(&self, end: &Event) -> Result<f32, Error> {
        self.event.elapsed_ms(&end.event).map_err(|e| {
            err(
                format!("time between events on cuda:{}", self.dev.ordinal),
                e,
            )
        })
    }

    /// The device ordinal.
    pub fn device(&self) -> usize {
        self.dev.ordinal
    }
}
