// The background: a vertical sky gradient, drawn first as one full-screen triangle.

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
}

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    let ndc = uv * 2.0 - 1.0;
    var out: SkyOut;
    out.clip = vec4<f32>(ndc, 0.0, 1.0);
    out.ndc = ndc;
    return out;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let h = globals.inv_view_proj * vec4<f32>(in.ndc, 0.5, 1.0);
    let d = normalize(h.xyz / h.w - globals.eye.xyz);
    return vec4<f32>(sky_color(d), 1.0);
}
