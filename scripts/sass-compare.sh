#!/usr/bin/env bash
# Prepares a comparison of the closest-point search's machine code (SASS) with the
# CUDA C++ reference of benches/reference/bvh_traversal_variants.cu (no GPU needed
# here): the PTX of the benchmark's mesh-query kernels and the reference's input
# (the benchmark sphere and two of its SAH trees) go to target-sass/ (ignored by
# git), with a runner. Then, through the device tool, in one call:
#     run(command="bash target-sass/run.sh", carry=["target-sass"])
# which assembles both on the GPU machine (ptxas / nvcc, sm_90), writes their SASS
# and per-kernel instruction histograms to $OUT, and runs the reference's timings.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf target-sass && mkdir -p target-sass
bench=$(cargo bench --bench cuda --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')
"$bench" --ptx target-sass/ptx
cargo run --release --example dump_bvh -- target-sass/data
# The reference reads two of the four trees; the others would not fit the carry.
rm -f target-sass/data/*_c1l4.bin target-sass/data/*_c1l1.bin
cat > target-sass/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root.
set -u
cd "$(dirname "$0")/.."
out="${OUT:-/tmp}"
work=/tmp/weft-sass && rm -rf "$work" && mkdir -p "$work"
histogram() { # SASS file -> "count opcode" lines, most frequent first
    grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T] )?[A-Z][A-Z0-9.]+' "$1" \
        | awk '{print $NF}' | sed 's/\..*//' | sort | uniq -c | sort -rn
}
for k in closest_first_pass closest_split_pass closest_points cast_rays camera_rays; do
    ptxas -arch=sm_90 -v "target-sass/ptx/$k.ptx" -o "$work/$k.cubin" 2>&1 | grep -E 'registers|stack'
    cuobjdump -sass "$work/$k.cubin" > "$out/$k.sass"
    echo "== $k: $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$out/$k.sass") instructions"
    histogram "$out/$k.sass" | head -12 | tr '\n' ' '; echo
done
nvcc -O3 -arch=sm_90 -cubin benches/reference/bvh_traversal_variants.cu -o "$work/ref.cubin"
cuobjdump -sass "$work/ref.cubin" > "$out/reference.sass"
echo "== reference (all kernels): $(grep -cE '^\s+/\*[0-9a-f]+\*/' "$out/reference.sass") instructions"
histogram "$out/reference.sass" | head -12 | tr '\n' ' '; echo
nvcc -O3 -arch=sm_90 benches/reference/bvh_traversal_variants.cu -o "$work/variants" \
    && timeout 300 "$work/variants" target-sass/data | tail -20
RUN
du -sh target-sass
