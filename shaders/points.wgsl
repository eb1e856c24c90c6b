// Particles as instanced sphere impostors: each particle is one instance of a
// camera-facing quad (a four-vertex triangle strip), and the fragment shader
// intersects the view ray with the exact sphere, writing its depth and normal.
// Instances read positions, colours and radii straight from storage buffers, so
// millions of particles cost one draw and no per-particle host work.

struct Batch {
    // Uniform colour (linear rgb) when color_mode is 0.
    color: vec4<f32>,
    // Radius when radius_mode is 0.
    radius: f32,
    // 0: uniform colour; 1: one packed sRGBA8 colour each; 2: one scalar each.
    color_mode: u32,
    // 0: uniform radius; 1: one radius each.
    radius_mode: u32,
    // Colour-map row for color_mode 2.
    colormap: u32,
    // Scalar mapping: t = (value - scalar_min) * scalar_scale.
    scalar_min: f32,
    scalar_scale: f32,
    // Multiplies every radius (the panel's point-size slider).
    radius_scale: f32,
    _pad: f32,
}

@group(1) @binding(0) var<uniform> batch: Batch;
// Positions as packed xyz floats (glam's 12-byte Vec3).
@group(1) @binding(1) var<storage, read> positions: array<f32>;
// Colours (packed sRGBA8) or scalars (f32 bits), per color_mode.
@group(1) @binding(2) var<storage, read> attrs: array<u32>;
@group(1) @binding(3) var<storage, read> radii: array<f32>;

struct PointOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) @interpolate(flat) center: vec3<f32>,
    @location(2) @interpolate(flat) radius: f32,
    @location(3) @interpolate(flat) color: vec3<f32>,
}

@vertex
fn vs_points(@builtin(vertex_index) vi: u32, @builtin(instance_index) i: u32) -> PointOut {
    // Strip order: (-1,-1), (1,-1), (-1,1), (1,1).
    let corner = vec2<f32>(f32(vi & 1u) * 2.0 - 1.0, f32(vi >> 1u) * 2.0 - 1.0);
    let c = vec3<f32>(positions[3u * i], positions[3u * i + 1u], positions[3u * i + 2u]);
    var r = batch.radius;
    if batch.radius_mode == 1u {
        r = radii[i];
    }
    r = r * batch.radius_scale;

    var color = batch.color.rgb;
    if batch.color_mode == 1u {
        color = unpack_color(attrs[i]).rgb;
    } else if batch.color_mode == 2u {
        let v = bitcast<f32>(attrs[i]);
        color = colormap(batch.colormap, (v - batch.scalar_min) * batch.scalar_scale);
    }

    // A square in the plane through the centre, facing the eye, just large enough to
    // cover the sphere's silhouette (exact in perspective: the tangent cone).
    var to_center = globals.forward.xyz;
    var half = r;
    if is_perspective() {
        let d = c - globals.eye.xyz;
        let dist = max(length(d), 1e-12);
        to_center = d / dist;
        half = r * dist / sqrt(max(dist * dist - r * r, 1e-12 * dist * dist));
        if dist <= r {
            half = 0.0; // the eye is inside the sphere: draw nothing
        }
    }
    var up0 = vec3<f32>(0.0, 0.0, 1.0);
    if abs(to_center.z) > 0.99 {
        up0 = vec3<f32>(1.0, 0.0, 0.0);
    }
    let right = normalize(cross(to_center, up0));
    let up = cross(right, to_center);
    let world = c + (right * corner.x + up * corner.y) * half;

    var out: PointOut;
    out.clip = globals.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    out.center = c;
    out.radius = r;
    out.color = color;
    return out;
}

struct Hit {
    point: vec3<f32>,
    normal: vec3<f32>,
    // How far inside the silhouette the ray passes (metres); negative outside.
    inside: f32,
}

fn hit_sphere(in: PointOut) -> Hit {
    let rd = view_ray(in.world);
    let oc = in.world - in.center;
    let b = dot(oc, rd);
    let closest = oc - b * rd;
    let q2 = dot(closest, closest);
    let r2 = in.radius * in.radius;
    // Clamp at the silhouette so edge fragments (kept for anti-aliasing) get a sane hit.
    let h = sqrt(max(r2 - q2, 0.0));
    let t = -b - h;
    var out: Hit;
    out.point = in.world + rd * t;
    out.normal = normalize(out.point - in.center);
    out.inside = in.radius - sqrt(q2);
    return out;
}

struct PointFragment {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_points(in: PointOut) -> PointFragment {
    let hit = hit_sphere(in);
    // Coverage from the distance to the silhouette in pixels: with alpha-to-coverage
    // and MSAA this gives smooth sphere edges.
    let px = max(fwidth(hit.inside), 1e-9);
    let coverage = clamp(hit.inside / px + 0.5, 0.0, 1.0);
    if coverage <= 0.0 {
        discard;
    }
    var out: PointFragment;
    out.color = vec4<f32>(shade(in.color, hit.normal, hit.point), coverage);
    out.depth = depth_of(hit.point);
    return out;
}

// Depth only, for the shadow map (an orthographic light view).
@fragment
fn fs_points_shadow(in: PointOut) -> @builtin(frag_depth) f32 {
    let hit = hit_sphere(in);
    if hit.inside < 0.0 {
        discard;
    }
    return depth_of(hit.point);
}
