//! Bit casts.

mod common;

use proptest::prelude::*;
use weft_types::builtins::*;

proptest! {
    #![proptest_config(common::config())]

    #[test]
    fn f32_bits_round_trip(b in any::<u32>()) {
        prop_assert_eq!(f32_to_bits(f32_from_bits(b)), b);
        prop_assert_eq!(f32_from_bits(b).to_bits(), b);
    }

    #[test]
    fn f64_bits_round_trip(b in any::<u64>()) {
        prop_assert_eq!(f64_to_bits(f64_from_bits(b)), b);
    }
}

#[test]
fn known_bits() {
    assert_eq!(f32_to_bits(1.0), 0x3f80_0000);
    assert_eq!(f32_to_bits(-0.0), 0x8000_0000);
    assert_eq!(f64_to_bits(1.0), 0x3ff0_0000_0000_0000);
    assert_eq!(f64_from_bits(0x4000_0000_0000_0000), 2.0);
}
