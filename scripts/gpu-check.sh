#!/usr/bin/env bash
# Builds Weft's test and benchmark binaries here (no GPU needed to build) and
# gathers them, stripped, in target-gpu/ (ignored by git) with a runner script.
# Then, through the device tool, run on the GPU machine in one call:
#     run(command="bash target-gpu/run.sh", carry=["target-gpu"])
# (`bash target-gpu/run.sh bench` runs the benchmarks only; ONLY="a b" runs just
# those test binaries, ONLY_BENCH="a" just those benchmarks, BENCH=0 no
# benchmarks, PAR=n n test binaries at a time; BENCH=0 on this script builds
# none).
# The runner executes every test binary (GPU tests run; CPU tests too) and the
# CUDA benchmarks, and prints a summary table last. Logs go to $OUT when set.
# It sets WEFT_REQUIRE_CUDA=1, so a test that finds no GPU fails instead of
# skipping (crates/weft-testkit/src/gpu_policy.rs), and points WEFT_PTXAS at the CUDA
# toolkit's ptxas for the PTX assembly checks; without a ptxas it says so in
# capitals and those checks fail.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf target-gpu && mkdir -p target-gpu
# Test binaries that exercise the GPU or the kernels it runs (debug build, so GPU
# bounds checks are on), and the runtime's own CUDA tests.
cargo test -p weft-examples --test cuda --test ptx --test gradients --test language \
    --test builtins --test builtin_gradients --test mesh_queries --test hash_grid_build \
    --test device_bvh --test bvh_queries --test activity --test func_arrays --test mesh_query_results --test local_arrays --test sim_cloth --test sim_xpbd --test granular --test sph --test accumulate --test rigid_gpu --test watertight_rays --test nan_check --test builtin_edges --test builtin_imports --test structure_gradients --test mesh_query_fields --test articulation_gpu \
    --test runtime -p weft-runtime --test cuda_runtime --lib --no-run --message-format=json 2>/dev/null \
    | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' > target-gpu/tests.txt
# BENCH=0 here too skips building the benchmarks (a release build of every
# dependency: minutes on a 2-core machine) when only the tests are to run.
: > target-gpu/bench.txt
[ "${BENCH:-1}" = 0 ] || cargo bench -p weft-examples --bench cuda --bench bounce --bench rigid_gpu -p weft-runtime --bench launch_overhead \
    --no-run --message-format=json 2>/dev/null \
    | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])' > target-gpu/bench.txt
# Stripped and compressed with xz (a third of gzip's size): the carried folder and
# the working tree together must stay under the device tool's 64 MiB (the debug
# builtin_gradients binary alone is ~49 MB stripped, 3.9 MB as xz).
for f in $(cat target-gpu/tests.txt target-gpu/bench.txt); do
    b="target-gpu/$(basename "$f")"
    cp "$f" "$b" && strip "$b" && xz -9 -T2 "$b"
done
sed -i 's#.*/##' target-gpu/tests.txt target-gpu/bench.txt
cat > target-gpu/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root.
cd "$(dirname "$0")/.."
out="${OUT:-/tmp}"
# Unpack the binaries next to each other in a writable place.
bin=/tmp/weft-gpu-bin-$$  # per run: two runs may go side by side (different OUT)
rm -rf "$bin" && mkdir -p "$bin"
for z in target-gpu/*.xz; do
    if command -v xz >/dev/null; then
        xz -dc "$z" >"$bin/$(basename "$z" .xz)"
    else
        python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
            "$z" "$bin/$(basename "$z" .xz)"
    fi
done
chmod +x "$bin"/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
# A GPU run must not pass by skipping: no GPU or no ptxas fails the tests.
export WEFT_REQUIRE_CUDA=1
if [ -z "${WEFT_PTXAS:-}" ]; then
    WEFT_PTXAS=$(command -v ptxas || ls /usr/local/cuda/bin/ptxas /usr/local/cuda-*/bin/ptxas \
        /opt/cuda/bin/ptxas 2>/dev/null | head -n 1 || true)
fi
if [ -n "$WEFT_PTXAS" ] && [ -x "$WEFT_PTXAS" ]; then
    export WEFT_PTXAS
    echo "ptxas: $WEFT_PTXAS ($("$WEFT_PTXAS" --version | tail -n 1))"
else
    unset WEFT_PTXAS
    echo "!!! PTXAS NOT FOUND (not on PATH, not in /usr/local/cuda*/bin): the PTX assembly"
    echo "!!! checks cannot run and the tests that make them FAIL (set WEFT_PTXAS=/path/to/ptxas)."
fi
summary=""
failures=""
# Logs are written straight under $OUT (when set): a device call killed at its
# time limit still returns what the running binary printed so far (the tests
# that finished are listed, so the one still running is the rest).
logs="$out/weft-gpu-logs"
rm -rf "$logs" && mkdir -p "$logs"
# `run.sh bench` runs only the benchmarks (to save device time between test runs).
tests=$(cat target-gpu/tests.txt)
[ "${1:-}" = bench ] && tests=""
# ONLY="bvh_queries activity" runs just those test binaries; BENCH=0 skips the
# benchmarks (for a short device window).
if [ -n "${ONLY:-}" ]; then
    tests=$(for t in $tests; do for o in $ONLY; do [ "${t%-*}" = "$o" ] && echo "$t"; done; done)
fi
# One test binary: its log, and its summary row (and failures) in files of its
# own, so binaries may run side by side (PAR=n below).
run_one() {
    local t=$1
    local log="$logs/$t.log"
    # A hung kernel must not eat the session's device time: 300 s per binary,
    # 450 s for rigid_gpu (its tower of ten boxes alone takes 300 s on an
    # H100; run it in a device call of its own: ONLY=rigid_gpu).
    local limit=300
    [ "${t%-*}" = rigid_gpu ] && limit=450
    # LIMIT=s overrides the limit; TEST_ARGS="--test-threads=1 name" narrows a run;
    # EACH=s runs the tests one by one (below).
    limit=${LIMIT:-$limit}
    local rc=0
    if [ -n "${EACH:-}" ]; then
        # EACH=s runs every test of the binary in a process of its own, s
        # seconds at most each (to find a test that hangs or crawls); each
        # test's name, status and time go to each.txt as it ends.
        for name in $("$bin/$t" --list 2>/dev/null | sed -n 's/: test$//p'); do
            local start
            start=$(date +%s%N)
            timeout "$EACH" "$bin/$t" --exact "$name" --test-threads=1 >>"$log" 2>&1
            local r=$?
            [ $r -eq 0 ] || rc=$r
            echo "${t%-*} $name rc=$r $(( ($(date +%s%N) - start) / 1000000 )) ms" \
                | tee -a "$logs/each.txt"
        done
    else
        timeout "$limit" "$bin/$t" ${TEST_ARGS:---test-threads=4} >"$log" 2>&1
        rc=$?
    fi
    local status=ok
    if [ $rc -ne 0 ]; then
        status=FAILED
        [ $rc -eq 124 ] && status=TIMEOUT
        # Only the failures come back (the device tool returns a few files).
        { echo "=== ${t%-*}"; grep -A25 -- '---- .* stdout ----' "$log" | head -120; } >"$logs/$t.fail"
    fi
    local passed failed skipped
    passed=$(grep -o '[0-9]* passed' "$log" | awk '{s+=$1} END {print s+0}')
    failed=$(grep -o '[0-9]* failed' "$log" | awk '{s+=$1} END {print s+0}')
    skipped=$(grep -c 'SKIPPED' "$log" || true)
    echo "| ${t%-*} | $status | $passed | $failed | $skipped |" >"$logs/$t.row"
    echo "done ${t%-*} $status"
}
# PAR=n runs n binaries at a time (the GPU host has 16 cores; the PTX checks
# use them all), in tests.txt's order: put the long ones first.
for t in $tests; do
    if [ "${PAR:-1}" -gt 1 ]; then
        run_one "$t" &
        while [ "$(jobs -rp | wc -l)" -ge "$PAR" ]; do sleep 1; done
    else
        run_one "$t"
    fi
done
wait
for t in $tests; do
    [ -f "$logs/$t.row" ] && summary+="$(cat "$logs/$t.row")"$'\n'
    [ -f "$logs/$t.fail" ] && failures+="$(cat "$logs/$t.fail")"$'\n'
done
benches=$(cat target-gpu/bench.txt)
[ "${BENCH:-1}" = 0 ] && benches=""
# ONLY_BENCH="rigid_gpu" runs just those benchmarks.
if [ -n "${ONLY_BENCH:-}" ]; then
    benches=$(for b in $benches; do for o in $ONLY_BENCH; do [ "${b%-*}" = "$o" ] && echo "$b"; done; done)
fi
for b in $benches; do
    case "$b" in
        # The CPU benchmark on 2 pinned cores of the (idle) GPU host, for reference.
        bounce-*) RAYON_NUM_THREADS=2 taskset -c 0,1 "$bin/$b" --bench --warm-up-time 1 \
            --measurement-time 3 2>&1 | grep -E '^bounce|time:' | tee "$out/bounce.log" ;;
        launch_overhead-*) timeout 300 "$bin/$b" --bench 2>&1 \
            | grep -E '^cuda_launch|time:|module load|SKIPPED|panicked' | tee "$out/launch_overhead.log" ;;
        *) timeout 300 "$bin/$b" | tee "$out/${b%-*}.log" ;;
    esac
done
[ -n "$failures" ] && printf '%s' "$failures" | tee "$out/failures.log"
echo
[ -z "${WEFT_PTXAS:-}" ] && echo "!!! PTXAS NOT FOUND: the PTX assembly checks failed for want of it (see above)."
echo "| test binary | status | passed | failed | skipped (no CUDA) |"
echo "|---|---|---|---|---|"
printf '%s' "$summary"
RUN
chmod +x target-gpu/run.sh
du -sh target-gpu
