// Rigid shapes (spheres, boxes, capsules, cylinders), instanced: one unit mesh per kind,
// one instance per shape with its transform, size and colour.
//
// A unit vertex is scaled by `size.xyz`; capsule vertices also carry `side` (+1 on
// the top cap, -1 on the bottom one, 0 elsewhere) and are moved by
// `side * size.w` along z, which stretches a sphere into a capsule of any length.

struct ShapeVertex {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) side: f32,
}

struct ShapeInstance {
    @location(3) translation: vec3<f32>,
    @location(4) rotation: vec4<f32>,
    @location(5) size: vec4<f32>,
    @location(6) color: vec4<f32>,
}

struct ShapeOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec3<f32>,
}

fn shape_local(v: ShapeVertex, s: ShapeInstance) -> vec3<f32> {
    return v.position * s.size.xyz + vec3<f32>(0.0, 0.0, v.side * s.size.w);
}

@vertex
fn vs_shapes(v: ShapeVertex, s: ShapeInstance) -> ShapeOut {
    let world = s.translation + quat_rotate(s.rotation, shape_local(v, s));
    var out: ShapeOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.normal = quat_rotate(s.rotation, v.normal / max(s.size.xyz, vec3<f32>(1e-12)));
    out.color = srgb_to_linear(s.color.rgb);
    return out;
}

@fragment
fn fs_shapes(in: ShapeOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in.color, normalize(in.normal), in.world), 1.0);
}

// Depth only, for the shadow map.
@vertex
fn vs_shapes_shadow(v: ShapeVertex, s: ShapeInstance) -> @builtin(position) vec4<f32> {
    let world = s.translation + quat_rotate(s.rotation, shape_local(v, s));
    return globals.view_proj * vec4<f32>(world, 1.0);
}
