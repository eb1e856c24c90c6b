#[weft::func]
fn many(v: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
    (v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v, v)
}

fn main() {}
