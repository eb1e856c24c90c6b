use weft::prelude::*;

#[weft::kernel]
fn k(out: &mut Array<String>) {
    let _i = tid();
}

fn main() {}
