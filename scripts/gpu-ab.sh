#!/usr/bin/env bash
# A/B of the CUDA mesh-query benchmark between the working tree (A) and git refs
# (B, C, ...), built here, run alternately on the GPU machine in one device call:
#     bash scripts/gpu-ab.sh exp/fma-closest [another-ref ...]
#     run(command="bash target-ab/run.sh", carry=["target-ab"])
# The runner alternates the builds for $ROUNDS rounds (default 3; ROUNDS=0 for none) with
# WEFT_CUDA_BENCH=mesh, then once more each under every setting listed in
# target-ab/settings.txt (one line of environment assignments per setting, e.g.
# `WEFT_TREES=2/4,2/8` or `WEFT_CUDA_BLOCKS=closest_regroup_pass=128`; edit it
# before the call), and prints the mesh rows of every run and a summary of
# `ClosestPoints` within 10 % last. With `ncu` on the machine and NCU=1, it also
# prints per-kernel times of one `ClosestPoints` call of each build.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: gpu-ab.sh GIT_REF [GIT_REF ...]" >&2; exit 2; }
root=$PWD
rm -rf target-ab && mkdir -p target-ab
bench_bin() {
    cargo bench --bench cuda --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])'
}
cp "$(bench_bin)" target-ab/cuda-A
printf 'A = working tree at %s\n' "$(git rev-parse --short HEAD)" >target-ab/versions.txt
# B, C, ...: a worktree of each ref, built into its own target folder (kept
# between runs).
wt="$root/target-exp/ab-worktree"
letters=(B C D E F G)
k=0
for ref in "$@"; do
    v=${letters[$k]}
    k=$((k + 1))
    git worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
    git worktree add --detach "$wt" "$ref" >/dev/null
    (cd "$wt" && CARGO_TARGET_DIR="$root/target-exp/ab-target" bench_bin) >target-ab/path.txt
    cp "$(cat target-ab/path.txt)" "target-ab/cuda-$v"
    git worktree remove --force "$wt"
    rm target-ab/path.txt
    printf '%s = %s (%s)\n' "$v" "$ref" "$(git rev-parse --short "$ref")" >>target-ab/versions.txt
done
for b in target-ab/cuda-*; do strip "$b" && gzip -9 "$b"; done
cat >target-ab/settings.txt <<'SETTINGS'
WEFT_CUDA_BLOCKS=closest_regroup_pass=128
WEFT_CUDA_BLOCKS=closest_regroup_pass=64
WEFT_TREES=2/8,2/4
SETTINGS
cat >target-ab/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root.
cd "$(dirname "$0")/.."
out="${OUT:-/tmp}"
bin=/tmp/weft-ab-bin
rm -rf "$bin" && mkdir -p "$bin"
variants=""
for z in target-ab/cuda-*.gz; do
    v=$(basename "$z" .gz)
    v=${v#cuda-}
    variants+="$v "
    gunzip -c "$z" >"$bin/cuda-$v"
done
chmod +x "$bin"/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
cat target-ab/versions.txt
summary=""
one() { # one(label, variant, env...)
    local label=$1 v=$2
    shift 2
    local log="$out/ab-$v-$(echo "$label" | tr -c 'A-Za-z0-9' _).log"
    env WEFT_CUDA_BENCH=mesh "$@" timeout 240 "$bin/cuda-$v" >"$log" 2>&1
    echo "== $v $label $*"
    grep -E '^\| .*(ClosestPoints|rays)' "$log"
    summary+="| $v | $label $* | $(grep -E '^\| mesh 327,680 tris: ClosestPoints within 10' "$log" | head -1 | cut -d'|' -f3) |"$'\n'
}
for r in $(seq "${ROUNDS:-3}"); do
    for v in $variants; do one "round $r" "$v"; done
done
# SETTINGS=0 skips them (a device call is limited to 10 minutes: run the rounds
# and the settings in two calls when there are three builds or more).
[ "${SETTINGS:-1}" = 1 ] && while read -r setting; do
    [ -z "$setting" ] && continue
    # shellcheck disable=SC2086
    for v in $variants; do one "setting" "$v" $setting; done
done <target-ab/settings.txt
if [ "${NCU:-0}" = 1 ] && command -v ncu >/dev/null; then
    for v in $variants; do
        echo "== ncu $v"
        # The batch's kernels in launch order (the unbounded calls come first,
        # then those within 10 %), each with its duration.
        WEFT_CUDA_BENCH=mesh timeout 300 ncu --kernel-name-base function \
            --kernel-name regex:'^(order_count|order_scatter|closest_(first|regroup|split)_pass|closest_finish)$' \
            --launch-count 121 --metrics gpu__time_duration.sum "$bin/cuda-$v" 2>&1 \
            | grep -E '^  [a-z_]+\(|gpu__time_duration' | paste - - \
            | awk '{print $1, $(NF)}' >"$out/ncu-$v.txt"
        # The last call of each kind: the within-10 % timing loop.
        tail -6 "$out/ncu-$v.txt"
    done
fi
printf '\n| build | run | ClosestPoints within 10 %% |\n|---|---|---|\n%s' "$summary"
RUN
ls -la target-ab
