#!/usr/bin/env bash
# The CUDA C++ references of benches/RESULTS.md ("Session 9", "Session 11"):
# `benches/reference/bvh_traversal_variants.cu` (closest-point and ray searches on
# the benchmark sphere) and the host warp model `closest_simt_model.cpp`.
#
# Here (no GPU needed): writes their input and a ready folder for the device:
#     scripts/cuda-reference.sh prepare     # -> target-ref/ (ignored by git)
# then on the GPU machine, through the device tool, in one call:
#     run(command="bash scripts/cuda-reference.sh run", carry=["target-ref"])
# which builds the reference with nvcc (sm_90, as recorded) and runs it on the
# dumped trees. `scripts/cuda-reference.sh model` builds and runs the host model here.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target-ref
case "${1:?usage: $0 prepare|run|model}" in
    prepare)
        rm -rf "$dir" && mkdir -p "$dir"
        # The sphere (327,680 triangles) and its host SAH trees as raw files.
        cargo run --release --example dump_bvh -- "$dir/data"
        du -sh "$dir" ;;
    run)
        [ -d "$dir/data" ] || { echo "no $dir/data: run '$0 prepare' first and carry $dir" >&2; exit 1; }
        nvcc --version | tail -n 1
        nvcc -O3 -arch=sm_90 benches/reference/bvh_traversal_variants.cu -o /tmp/weft-variants
        /tmp/weft-variants "$dir/data" | tee "${OUT:-/tmp}/cuda-reference.log" ;;
    model)
        [ -d "$dir/data" ] || "$0" prepare
        g++ -O2 -o "$dir/model" benches/reference/closest_simt_model.cpp
        "$dir/model" "$dir/data" ;;
    *) echo "unknown command '$1': prepare, run or model" >&2; exit 1 ;;
esac
