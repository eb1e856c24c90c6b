//! GPU time of the shadow and main passes, from timestamp queries (where supported).

use std::time::Duration;

pub(crate) struct GpuTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
}

const COUNT: u32 = 4;

impl GpuTimer {
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: COUNT,
        });
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: 8 * COUNT as u64,
                usage,
                mapped_at_creation: false,
            })
        };
        Some(GpuTimer {
            queries,
            resolve: buffer(
                "timestamps",
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            ),
            readback: buffer(
                "timestamps readback",
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            ),
            period_ns: queue.get_timestamp_period() as f64,
        })
    }

    /// Timestamp writes for pass `k` (0: shadow, 1: main).
    pub(crate) fn writes(&self, k: u32) -> wgpu::RenderPassTimestampWrites<'_> {
        wgpu::RenderPassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * k),
            end_of_pass_write_index: Some(2 * k + 1),
        }
    }

    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..COUNT, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 8 * COUNT as u64);
    }

    /// Waits for the GPU and returns the summed time of the passes that ran
    /// (`shadow_ran` says whether pass 0 did).
    pub(crate) fn read(&self, device: &wgpu::Device, shadow_ran: bool) -> Option<Duration> {
        let (tx, rx) = std::sync::mpsc::channel();
        self.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            let _ = tx.send(r);
        });
        device.poll(wgpu::PollType::wait_indefinitely()).ok()?;
        rx.recv().ok()?.ok()?;
        let ticks: Vec<u64> = {
            let view = self.readback.get_mapped_range(..).ok()?;
            bytemuck::cast_slice(&view).to_vec()
        };
        self.readback.unmap();
        let span = |k: usize| ticks[2 * k + 1].saturating_sub(ticks[2 * k]);
        let total = span(1) + if shadow_ran { span(0) } else { 0 };
        Some(Duration::from_nanos((total as f64 * self.period_ns) as u64))
    }
}
