#!/usr/bin/env bash
# Instruction counts of the CPU kernels (the "callgrind" numbers of
# benches/RESULTS.md), one thread, with valgrind's callgrind:
#     scripts/instruction-counts.sh bounce   # 16,384 balls, 288 steps, forward + backward
#     scripts/instruction-counts.sh cloth    # 128² cloth, 110 substeps
#     scripts/instruction-counts.sh sph      # 32,000-particle SPH step, settled state
# Prints the total and the kernels' bodies (inclusive counts; a forward kernel is
# `NAME::launch::{{closure}}`, its adjoint `NAME::__adjoint::{{closure}}`) and leaves
# callgrind.out.* in target/callgrind/. CARGO_TARGET_DIR is respected.
# Counts are per run: divide by the iterations / substeps / steps given below.
# Needs valgrind (apt-get install valgrind). Valgrind has no AVX-512: on such CPUs
# the counts are of the AVX2 paths (as recorded).
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:?usage: $0 bounce|cloth|sph}"
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)" >&2; exit 1; }
bin="${CARGO_TARGET_DIR:-target}/release/examples"
out=target/callgrind
mkdir -p "$out"
export RAYON_NUM_THREADS=1
case "$what" in
    # 3 iterations of forward + backward: divide by 3.
    bounce) cargo build --release --example bounce_timing
            cmd=("$bin/bounce_timing" 16384 3) ;;
    # 110 substeps after 0 warm-up substeps: divide by 110.
    cloth) cargo build --release --example cloth_timing
           cmd=("$bin/cloth_timing" 128 110 0) ;;
    # The settled state is cached in target/callgrind/sph.state (written by a first,
    # uninstrumented run); 1 repetition of each phase.
    sph) cargo build --release --example sph_timing
         export WEFT_SPH_STATE="$out/sph.state"
         [ -f "$WEFT_SPH_STATE" ] || "$bin/sph_timing" 600 1
         cmd=("$bin/sph_timing" 0 1) ;;
    *) echo "unknown workload '$what': bounce, cloth or sph" >&2; exit 1 ;;
esac
file="$out/callgrind.out.$what"
valgrind --tool=callgrind --callgrind-out-file="$file" "${cmd[@]}"
# The total, then the kernels' bodies (forward launches and adjoints), inclusive.
callgrind_annotate --inclusive=yes "$file" | grep -E 'PROGRAM TOTALS|__adjoint|::launch::\{\{closure' | head -n 30
