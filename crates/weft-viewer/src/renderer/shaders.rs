//! The WGSL sources (`shaders/*.wgsl` at the repository root), compiled into the crate.

/// Prepended to every other shader: uniforms, shadow lookup, colour maps, lighting.
pub const COMMON: &str = include_str!("../../../../shaders/common.wgsl");

/// `(file name, source)` of every shader but `common.wgsl`; each is used as
/// `COMMON + source` (see [`compose`]).
pub const SHADERS: &[(&str, &str)] = &[
    ("sky.wgsl", include_str!("../../../../shaders/sky.wgsl")),
    (
        "ground.wgsl",
        include_str!("../../../../shaders/ground.wgsl"),
    ),
    (
        "points.wgsl",
        include_str!("../../../../shaders/points.wgsl"),
    ),
    ("mesh.wgsl", include_str!("../../../../shaders/mesh.wgsl")),
    (
        "shapes.wgsl",
        include_str!("../../../../shaders/shapes.wgsl"),
    ),
    ("lines.wgsl", include_str!("../../../../shaders/lines.wgsl")),
];

/// The full source of shader `file`: `common.wgsl` followed by the file.
///
/// # Panics
/// If `file` is not one of [`SHADERS`] (a bug in the renderer).
pub fn compose(file: &str) -> String {
    let (_, src) = SHADERS
        .iter()
        .find(|(name, _)| *name == file)
        .unwrap_or_else(|| panic!("no shader named {file}"));
    format!("{COMMON}\n{src}")
}

/// Creates the shader module for `file`.
pub(crate) fn module(device: &wgpu::Device, file: &str) -> wgpu::ShaderModule {
    device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some(file),
        source: wgpu::ShaderSource::Wgsl(compose(file).into()),
    })
}
