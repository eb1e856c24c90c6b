//! Copying a rendered texture back to the host as an RGBA image.

use crate::Error;

/// Copies `texture` (RGBA8 or BGRA8, sRGB or not) into an opaque RGBA image.
pub(crate) fn read_rgba(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
) -> Result<image::RgbaImage, Error> {
    let (w, h) = (texture.width(), texture.height());
    let row = w * 4;
    let padded = row.next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
    let buffer = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: (padded * h) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        texture.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(h),
            },
        },
        texture.size(),
    );
    queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| Error::Window(format!("waiting for the GPU: {e}")))?;
    rx.recv()
        .map_err(|e| Error::Window(format!("readback: {e}")))?
        .map_err(|e| Error::Window(format!("readback: {e}")))?;
    let bgra = matches!(
        texture.format(),
        wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
    );
    let mut pixels = Vec::with_capacity((row * h) as usize);
    {
        let view = buffer
            .get_mapped_range(..)
            .map_err(|e| Error::Window(format!("readback: {e}")))?;
        for y in 0..h as usize {
            let line = &view[y * padded as usize..][..row as usize];
            for px in line.chunks_exact(4) {
                let (r, b) = if bgra { (px[2], px[0]) } else { (px[0], px[2]) };
                // Alpha-to-coverage leaves partial alpha at sphere edges: images are opaque.
                pixels.extend_from_slice(&[r, px[1], b, 255]);
            }
        }
    }
    buffer.unmap();
    Ok(image::RgbaImage::from_raw(w, h, pixels).expect("size matches"))
}
