//! CUDA graphs: record a sequence of launches once, replay it with one call.

use std::any::Any;
use std::sync::atomic::Ordering;

use cudarc::driver::{result, sys};

use super::context::{self, Dev, capturing_any, start_capture, stop_capture, with_capture};
use super::driver::{err, fail};
use super::memory;
use crate::{Device, Error};

/// A recorded sequence of launches (and device copies and fills) on one CUDA
/// device, replayed with [`Graph::launch`]: one driver call instead of one per
/// kernel, which is what makes small simulation steps fast.
///
/// Captured launches keep the argument values they were launched with, array
/// addresses included: allocate every array a graph uses before capturing it. The
/// graph keeps the arrays it was given through [`retain_in_capture`] (the launcher
/// does this for every array of a captured launch) alive as long as it lives.
/// Replays do not take the arrays' borrow flags, so the tape's overwrite check does
/// not see them.
///
/// ```no_run
/// # fn main() -> Result<(), weft_runtime::Error> {
/// # let (ptx, args): (&'static str, Vec<u8>) = ("", vec![]);
/// use weft_runtime::cuda::{Graph, Launcher};
/// let step = Graph::capture(0, || {
///     Launcher::new(0).launch(ptx, "integrate", 1 << 20, &args)?;
///     Launcher::new(0).launch(ptx, "collide", 1 << 20, &args)
/// })?;
/// for _ in 0..1000 {
///     step.launch()?;
/// }
/// weft_runtime::cuda::synchronize(0)?;
/// # Ok(()) }
/// ```
pub struct Graph {
    dev: &'static Dev,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    nodes: usize,
    frees: Vec<u64>,
    keep: Vec<Box<dyn Any + Send + Sync>>,
}

// SAFETY: graph handles may be used from any thread as long as calls on one graph
// are not concurrent; `Graph` is not `Sync`, so they are not.
unsafe impl Send for Graph {}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("device", &self.device())
            .field("nodes", &self.nodes)
            .finish()
    }
}

/// Ends a capture however `Graph::capture` leaves (error or panic).
struct Capturing {
    dev: &'static Dev,
    stream: sys::CUstream,
    active: bool,
}

impl Capturing {
    /// Ends the capture: the recorded graph (or the driver's error) and the
    /// allocations dropped meanwhile.
    fn end(
        &mut self,
    ) -> (
        Result<sys::CUgraph, cudarc::driver::DriverError>,
        context::Capture,
    ) {
        self.active = false;
        let collected = stop_capture();
        // SAFETY: the stream is this device's capture stream, capturing.
        let g = unsafe { result::stream::end_capture(self.stream) };
        (g, collected)
    }
}

impl Drop for Capturing {
    fn drop(&mut self) {
        if self.active {
            let (g, collected) = self.end();
            discard(self.dev, g.ok(), collected.frees);
        }
    }
}

/// Destroys an unused graph and frees the allocations its capture deferred.
fn discard(dev: &Dev, graph: Option<sys::CUgraph>, frees: Vec<u64>) {
    if let Some(g) = graph.filter(|g| !g.is_null()) {
        // SAFETY: the graph came from a capture and is destroyed once.
        let _ = unsafe { result::graph::destroy(g) };
    }
    for p in frees {
        memory::free(dev, p);
    }
}

impl Graph {
    /// Records the launches `f` makes on device `ordinal` from this thread into a
    /// graph (stream capture), without running them.
    ///
    /// Inside `f`, kernel launches, device-to-device copies and fills of arrays on
    /// this device are recorded; allocating device memory, copying from or to the
    /// host and synchronising are errors (they cannot be replayed). Launches from
    /// other threads are not recorded. If `f` fails or panics the capture is
    /// abandoned.
    pub fn capture(ordinal: usize, f: impl FnOnce() -> Result<(), Error>) -> Result<Graph, Error> {
        let what = || format!("capture of a graph on cuda:{ordinal}");
        let dev = context::device(ordinal)?;
        if capturing_any() {
            return Err(fail(
                what(),
                "this thread is already capturing a graph (captures do not nest)",
            ));
        }
        dev.bind()?;
        let stream = dev.capture_stream.cu_stream();
        // SAFETY: the device's capture stream, idle (captures do not nest and only
        // this thread captures on it: it holds the capture until `end`).
        unsafe {
            result::stream::begin_capture(
                stream,
                sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
            )
        }
        .map_err(|e| err(what(), e))?;
        start_capture(ordinal);
        let mut cap = Capturing {
            dev,
            stream,
            active: true,
        };
        let outcome = f();
        let (graph, collected) = cap.end();
        if let Err(e) = outcome {
            discard(dev, graph.ok(), collected.frees);
            return Err(e);
        }
        let graph = match graph {
            Ok(g) if !g.is_null() => g,
            Ok(_) => return Err(fail(what(), "the driver returned no graph")),
            Err(e) => {
                discard(dev, None, collected.frees);
                let mut e = err(what(), e);
                if let Error::Cuda { reason, .. } = &mut e {
                    reason.push_str(
                        "; an operation inside the capture cannot be recorded into a graph",
                    );
                }
                return Err(e);
            }
        };
        let mut nodes = 0usize;
        // SAFETY: a valid graph; with a null array only the count is written.
        unsafe { sys::cuGraphGetNodes(graph, std::ptr::null_mut(), &mut nodes) };
        // SAFETY: a valid graph, instantiated once.
        let exec =
            match unsafe { result::graph::instantiate(graph, sys::CUgraphInstantiate_flags(0)) } {
                Ok(x) => x,
                Err(e) => {
                    discard(dev, Some(graph), collected.frees);
                    return Err(err(what(), e));
                }
            };
        let g = Graph {
            dev,
            graph,
            exec,
            nodes,
            frees: collected.frees,
            keep: collected.keep,
        };
        // Move the graph's resources to the device now rather than at the first launch.
        // SAFETY: a valid executable graph and this device's stream.
        unsafe { result::graph::upload(g.exec, dev.stream.cu_stream()) }
            .map_err(|e| err(what(), e))?;
        Ok(g)
    }

    /// Replays the graph on the device's stream (asynchronously, like a launch).
    pub fn launch(&self) -> Result<(), Error> {
        self.dev.bind()?;
        // SAFETY: a valid executable graph of this device; launches of one graph are
        // serialised by `&self` with `Graph: !Sync`.
        let r = unsafe { result::graph::launch(self.exec, self.dev.work_stream()) };
        self.dev.dirty.store(true, Ordering::Release);
        r.map_err(|e| err(format!("launch of a graph on cuda:{}", self.dev.ordinal), e))
    }

    /// The device the graph runs on.
    pub fn device(&self) -> Device {
        Device::Cuda(self.dev.ordinal)
    }

    /// The number of recorded operations (kernels, copies, fills).
    pub fn node_count(&self) -> usize {
        self.nodes
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if self.dev.bind().is_err() {
            return;
        }
        // SAFETY: handles owned by this graph, destroyed once; replays already queued
        // keep their own reference to the executable graph.
        unsafe {
            let _ = result::graph::exec_destroy(self.exec);
            let _ = result::graph::destroy(self.graph);
        }
        // Stream-ordered: after every replay queued so far.
        for p in self.frees.drain(..) {
            memory::free(self.dev, p);
        }
        self.keep.clear();
    }
}

/// Keeps `item` (e.g. an array handle from `Array::share`) alive as long as the graph
/// being captured on this thread, so the memory its launches use cannot be freed
/// under it. Returns whether a capture was active (otherwise `item` is dropped).
pub fn retain_in_capture(item: impl Any + Send + Sync) -> bool {
    with_capture(|c| c.keep.push(Box::new(item))).is_some()
}
