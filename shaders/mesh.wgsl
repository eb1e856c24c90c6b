// Triangle meshes with per-vertex normals and colours, lit on both faces (cloth is
// seen from either side).

struct MeshUniform {
    model: mat4x4<f32>,
    // Inverse transpose of the model matrix (for normals under non-uniform scale).
    normal_matrix: mat4x4<f32>,
}

@group(1) @binding(0) var<uniform> mesh: MeshUniform;

struct MeshIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec3<f32>,
}

@vertex
fn vs_mesh(in: MeshIn) -> MeshOut {
    let world = (mesh.model * vec4<f32>(in.position, 1.0)).xyz;
    var out: MeshOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = (mesh.normal_matrix * vec4<f32>(in.normal, 0.0)).xyz;
    out.color = srgb_to_linear(in.color.rgb);
    return out;
}

@fragment
fn fs_mesh(in: MeshOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var n = normalize(in.normal);
    if !front {
        n = -n;
    }
    return vec4<f32>(shade(in.color, n, in.world), 1.0);
}

// Depth only, for the shadow map.
@vertex
fn vs_mesh_shadow(in: MeshIn) -> @builtin(position) vec4<f32> {
    let world = (mesh.model * vec4<f32>(in.position, 1.0)).xyz;
    return globals.view_proj * vec4<f32>(world, 1.0);
}
