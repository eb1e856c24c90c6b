use weft::prelude::*;

#[weft::structure]
struct State {
    x: Array<f32>,
}

#[weft::func]
fn reset(s: &mut State, i: i32) {
    s.x[i] = 0.0;
}

#[weft::kernel]
fn k(s: &State) {
    reset(s, tid());
}

fn main() {}
