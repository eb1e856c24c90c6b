//! The sky gradient and the ground plane with its grid.

use super::pipeline::{self, Lit, Spec, Target};

/// Sky and ground pipelines (they need no buffers: vertices come from the index).
pub(crate) struct Background {
    sky: wgpu::RenderPipeline,
    ground: Lit,
}

impl Background {
    pub(crate) fn new(
        device: &wgpu::Device,
        globals: &wgpu::BindGroupLayout,
        target: Target,
    ) -> Self {
        let pl = pipeline::layout(device, "background", globals, None);
        let sky_module = super::shaders::module(device, "sky.wgsl");
        let ground_module = super::shaders::module(device, "ground.wgsl");
        let sky = pipeline::main(
            device,
            &Spec {
                label: "sky",
                layout: &pl,
                module: &sky_module,
                vs: "vs_sky",
                fs: Some("fs_sky"),
                buffers: &[],
                alpha_to_coverage: false,
                depth_write: false,
                depth_test: false,
                topology: wgpu::PrimitiveTopology::TriangleList,
            },
            target,
        );
        let ground = Lit::new(
            device,
            &Spec {
                label: "ground",
                layout: &pl,
                module: &ground_module,
                vs: "vs_ground",
                fs: Some("fs_ground"),
                buffers: &[],
                alpha_to_coverage: false,
                depth_write: true,
                depth_test: true,
                topology: wgpu::PrimitiveTopology::TriangleList,
            },
            target,
        );
        Background { sky, ground }
    }

    pub(crate) fn draw_sky(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.sky);
        pass.draw(0..3, 0..1);
    }

    /// The ground, sampling the shadow map if `shadows` (it was rendered this frame).
    pub(crate) fn draw_ground(&self, pass: &mut wgpu::RenderPass<'_>, shadows: bool) {
        pass.set_pipeline(self.ground.get(shadows));
        pass.draw(0..6, 0..1);
    }
}
