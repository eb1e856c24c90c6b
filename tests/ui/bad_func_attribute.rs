#[weft::func(gradient = my_grad)]
fn f(x: f32) -> f32 {
    x
}

fn main() {}
