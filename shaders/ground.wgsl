// The ground plane: a large quad at the ground height with an anti-aliased grid
// (major lines every `ground.y` metres, minor every tenth of that), the x and y
// axes tinted, shadows, and fog into the horizon so it reads as endless.

struct GroundOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
}

@vertex
fn vs_ground(@builtin(vertex_index) i: u32) -> GroundOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let c = corners[i];
    let world = vec3<f32>(globals.ground_center.xy + c * globals.ground.z, globals.ground.x);
    var out: GroundOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    return out;
}

// Coverage of grid lines `width` pixels wide at integer values of `coord`.
fn grid_lines(coord: vec2<f32>, width: f32) -> f32 {
    let fw = max(fwidth(coord), vec2<f32>(1e-6));
    let dist = abs(fract(coord - 0.5) - 0.5) / fw;
    let line = clamp(width - min(dist.x, dist.y), 0.0, 1.0);
    // Fade lines that would be closer than ~3 pixels apart (they would alias into grey).
    let density = max(fw.x, fw.y);
    return line * clamp(1.5 - density * 3.0, 0.0, 1.0);
}

@fragment
fn fs_ground(in: GroundOut) -> @location(0) vec4<f32> {
    let p = in.world;
    let spacing = globals.ground.y;
    let major = grid_lines(p.xy / spacing, 1.4);
    let minor = grid_lines(p.xy / (spacing * 0.1), 0.8);
    let axis_fw = max(fwidth(p.xy), vec2<f32>(1e-6));
    let axis = clamp(1.6 - abs(p.xy) / axis_fw, vec2<f32>(0.0), vec2<f32>(1.0));

    var albedo = vec3<f32>(0.56, 0.57, 0.59);
    albedo = mix(albedo, vec3<f32>(0.30, 0.31, 0.34), max(major * 0.8, minor * 0.22));
    // x axis (y = 0) reddish, y axis (x = 0) greenish.
    albedo = mix(albedo, vec3<f32>(0.70, 0.16, 0.14), axis.y * 0.8);
    albedo = mix(albedo, vec3<f32>(0.18, 0.55, 0.20), axis.x * 0.8);

    var color = shade(albedo, vec3<f32>(0.0, 0.0, 1.0), p);
    // Fog towards the horizon colour with distance from the eye.
    let dist = length(p - globals.eye.xyz);
    let fog = smoothstep(globals.ground_center.z, globals.ground_center.w, dist);
    color = mix(color, globals.sky_horizon.rgb, fog);
    return vec4<f32>(color, 1.0);
}
