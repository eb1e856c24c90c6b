// Line segments a fixed number of pixels wide: each segment is one instance of a
// six-vertex quad, expanded in screen space around the projected segment.

struct LineBatch {
    // x: width in pixels.
    params: vec4<f32>,
}

@group(1) @binding(0) var<uniform> line_batch: LineBatch;

struct LineInstance {
    @location(0) a: vec3<f32>,
    @location(1) b: vec3<f32>,
    @location(2) color: vec4<f32>,
}

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec3<f32>,
}

@vertex
fn vs_lines(@builtin(vertex_index) vi: u32, s: LineInstance) -> LineOut {
    // Quad corners: x picks the end (0: a, 1: b), y the side (-1, +1).
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(0.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0),
    );
    let corner = corners[vi];
    var ca = globals.view_proj * vec4<f32>(s.a, 1.0);
    var cb = globals.view_proj * vec4<f32>(s.b, 1.0);
    // Clip the segment against a plane just in front of the eye so that an end
    // behind the camera does not flip through infinity.
    let near_w = 1e-5;
    if ca.w < near_w && cb.w >= near_w {
        ca = mix(ca, cb, (near_w - ca.w) / (cb.w - ca.w));
    } else if cb.w < near_w && ca.w >= near_w {
        cb = mix(cb, ca, (near_w - cb.w) / (ca.w - cb.w));
    }
    let size = globals.viewport.xy;
    let sa = ca.xy / ca.w * size * 0.5;
    let sb = cb.xy / cb.w * size * 0.5;
    var dir = sb - sa;
    if dot(dir, dir) < 1e-12 {
        dir = vec2<f32>(1.0, 0.0);
    }
    let normal = normalize(vec2<f32>(-dir.y, dir.x));
    var clip = select(ca, cb, corner.x > 0.5);
    let offset = normal * corner.y * line_batch.params.x * 0.5 / (size * 0.5);
    clip = vec4<f32>(clip.xy + offset * clip.w, clip.z, clip.w);
    var out: LineOut;
    out.clip = clip;
    if ca.w < near_w && cb.w < near_w {
        out.clip = vec4<f32>(0.0, 0.0, -1.0, 1.0); // wholly behind the eye
    }
    out.color = srgb_to_linear(s.color.rgb);
    return out;
}

@fragment
fn fs_lines(in: LineOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.color, 1.0);
}
