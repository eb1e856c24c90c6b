#[weft::func]
fn f(x: f32) -> f32 {
    if x > 0.0 {
        return x;
    }
}

fn main() {}
