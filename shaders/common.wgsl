// Shared by every Weft viewer shader: the per-view uniforms, the shadow map, the
// colour-map lookup texture, and the lighting model. The renderer prepends this
// file to each of the others (WGSL has no includes).
//
// Conventions: Z up, right-handed, metres. Depth is reversed (1 near, 0 far) in
// both the camera and the light views. Colours are linear inside the shaders and
// written to sRGB targets.

struct Globals {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // xyz: eye position; w: 1 for a perspective view, 0 for an orthographic one.
    eye: vec4<f32>,
    // xyz: viewing direction (used by orthographic views).
    forward: vec4<f32>,
    // xyz: unit direction towards the light; w: 1 when shadows are on.
    light_dir: vec4<f32>,
    light_color: vec4<f32>,
    sky_top: vec4<f32>,
    sky_horizon: vec4<f32>,
    ambient_sky: vec4<f32>,
    ambient_ground: vec4<f32>,
    // x: height, y: major grid spacing, z: half extent, w: 1 when the ground is drawn.
    ground: vec4<f32>,
    // xy: centre of the ground quad; z, w: distances where the fog starts and is complete.
    ground_center: vec4<f32>,
    // xy: viewport size in pixels; zw: its inverse.
    viewport: vec4<f32>,
    // x: shadow-map texel size in uv; y: depth bias; z: normal offset (metres).
    shadow: vec4<f32>,
}

// Whether `shade` looks the shadow map up. The renderer builds every lit pipeline
// twice, with this on and off, and draws frames without shadows with the second:
// CPU rasterisers (lavapipe) run both sides of a branch, so a runtime test of
// `light_dir.w` alone would still pay for the four shadow-map samples per pixel.
override SHADOWS: bool = true;

@group(0) @binding(0) var<uniform> globals: Globals;
@group(0) @binding(1) var shadow_map: texture_depth_2d;
@group(0) @binding(2) var shadow_sampler: sampler_comparison;
@group(0) @binding(3) var colormaps: texture_2d<f32>;
@group(0) @binding(4) var colormap_sampler: sampler;

fn srgb_to_linear(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + vec3<f32>(0.055)) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

// An sRGBA8 colour packed as rgba bytes (r in the low byte), to linear.
fn unpack_color(c: u32) -> vec4<f32> {
    let v = unpack4x8unorm(c);
    return vec4<f32>(srgb_to_linear(v.rgb), v.a);
}

// Colour map `map` (a row of the lookup texture) at t in [0, 1], linear.
fn colormap(map: u32, t: f32) -> vec3<f32> {
    let rows = f32(textureDimensions(colormaps).y);
    let uv = vec2<f32>(clamp(t, 0.0, 1.0) * (255.0 / 256.0) + 0.5 / 256.0, (f32(map) + 0.5) / rows);
    return srgb_to_linear(textureSampleLevel(colormaps, colormap_sampler, uv, 0.0).rgb);
}

fn is_perspective() -> bool {
    return globals.eye.w > 0.5;
}

// Unit direction of the view ray through world point p.
fn view_ray(p: vec3<f32>) -> vec3<f32> {
    if is_perspective() {
        return normalize(p - globals.eye.xyz);
    }
    return globals.forward.xyz;
}

// Depth-buffer value of world point p.
fn depth_of(p: vec3<f32>) -> f32 {
    let c = globals.view_proj * vec4<f32>(p, 1.0);
    return c.z / c.w;
}

// Rotates v by the unit quaternion q = (x, y, z, w).
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

// The sky's colour in direction d (a vertical gradient, Z up).
fn sky_color(d: vec3<f32>) -> vec3<f32> {
    let up = clamp(d.z, 0.0, 1.0);
    let k = pow(1.0 - up, 3.0);
    return mix(globals.sky_top.rgb, globals.sky_horizon.rgb, k);
}

// Fraction of the light reaching world point p with normal n (1: fully lit).
fn shadow_factor(p: vec3<f32>, n: vec3<f32>) -> f32 {
    if globals.light_dir.w < 0.5 {
        return 1.0;
    }
    let lp = globals.light_view_proj * vec4<f32>(p + n * globals.shadow.z, 1.0);
    let ndc = lp.xyz / lp.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if any(uv < vec2<f32>(0.0)) || any(uv > vec2<f32>(1.0)) || ndc.z < 0.0 || ndc.z > 1.0 {
        return 1.0;
    }
    // Reversed depth: the map holds the largest (closest to the light) depth; p is
    // lit when it is at least that close. Four bilinear comparisons a texel apart:
    // a soft 4x4-texel filter.
    let t = globals.shadow.x;
    let reference = ndc.z + globals.shadow.y;
    var lit = textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-t, -t), reference);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(t, -t), reference);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(-t, t), reference);
    lit += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + vec2<f32>(t, t), reference);
    return lit * 0.25;
}

// Lit colour of a surface point: hemisphere ambient (sky above, ground below), a
// directional light with shadows, and a soft highlight.
fn shade(albedo: vec3<f32>, n: vec3<f32>, p: vec3<f32>) -> vec3<f32> {
    let l = globals.light_dir.xyz;
    let v = -view_ray(p);
    let ndl = max(dot(n, l), 0.0);
    var visible = 1.0;
    if SHADOWS && ndl > 0.0 {
        visible = shadow_factor(p, n);
    }
    let hemi = mix(globals.ambient_ground.rgb, globals.ambient_sky.rgb, n.z * 0.5 + 0.5);
    let h = normalize(l + v);
    let spec = pow(max(dot(n, h), 0.0), 60.0) * 0.25 * ndl * visible;
    // A touch of rim light keeps silhouettes readable against the ground.
    let rim = pow(1.0 - max(dot(n, v), 0.0), 4.0) * 0.08;
    let direct = globals.light_color.rgb * (ndl * visible);
    return albedo * (hemi + direct) + globals.light_color.rgb * spec + vec3<f32>(rim) * globals.ambient_sky.rgb;
}
