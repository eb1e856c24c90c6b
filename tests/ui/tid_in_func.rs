#[weft::func]
fn f() -> i32 {
    tid()
}

fn main() {}
