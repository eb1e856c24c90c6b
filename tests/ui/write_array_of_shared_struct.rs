use weft::prelude::*;

#[weft::structure]
struct State {
    x: Array<f32>,
}

#[weft::kernel]
fn k(s: &State) {
    s.x[tid()] = 1.0;
}

fn main() {}
