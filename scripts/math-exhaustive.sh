#!/usr/bin/env bash
# Checks every unary f32 function of weft-math on all 2^32 inputs against the f64
# std result rounded to f32 (the crate docs' accuracy table; benches/RESULTS.md,
# "Accuracy of the elementary functions"). Release build, all cores: about 23 x 2^32
# evaluations, hours on 2 cores, well under one on 16.
#     scripts/math-exhaustive.sh            # every input
#     WEFT_EXHAUSTIVE_STEP=4099 scripts/math-exhaustive.sh   # a quick trial
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test -p weft-math --release --test exhaustive -- --ignored --nocapture
