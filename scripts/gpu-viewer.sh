#!/usr/bin/env bash
# The viewer's frame time on a GPU: builds the render benchmark here (release, no
# GPU needed to build), gathers it stripped in target-gpu-viewer/ (ignored by git)
# with a runner script, then, through the device tool, in one call:
#     run(command="bash target-gpu-viewer/run.sh", carry=[".gl", "target-gpu-viewer"])
# The runner prints the adapter and, per configuration (1M, 20k and no particles at
# 1280x720, full look and cheapest), criterion's wall time per frame and the GPU
# time of the render passes from timestamp queries; then it runs the render tests
# (pixels and the reference image, on the GPU's rasteriser). Logs go to $OUT when set.
#
# The lent GPU machines have the NVIDIA driver but no Vulkan loader: the runner
# unpacks the loader and GLVND from .gl/*.deb first. Fetch them once, here, from
# the repository root (they are ignored through .git/info/exclude):
#     echo /.gl/ >>.git/info/exclude; mkdir -p .gl /tmp/amd64/partial
#     o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
#     apt-get $o update; (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 \
#         libopengl0 libgl1 libglx0 libgles2)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! ls .gl/libvulkan1_*.deb >/dev/null 2>&1; then
    echo "warning: no .gl/libvulkan1_*.deb: the GPU machine will find no Vulkan loader (see the top of $0)" >&2
fi
rm -rf target-gpu-viewer && mkdir -p target-gpu-viewer
bench=$(cargo bench -p weft-viewer --bench render --no-run --message-format=json 2>/dev/null \
    | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')
cp "$bench" target-gpu-viewer/render && strip target-gpu-viewer/render
test=$(cargo test -p weft-viewer --test render --no-run --message-format=json 2>/dev/null \
    | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        print(m["executable"])')
cp "$test" target-gpu-viewer/render-test && strip target-gpu-viewer/render-test
cat > target-gpu-viewer/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs on the GPU machine from the repository root.
cd "$(dirname "$0")/.."
out="${OUT:-/tmp}"
if ! ldconfig -p | grep -q libvulkan.so.1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
# The driver's own ICD manifest, where the system one names libraries that are absent.
nv=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nv" ]; then
    export VK_DRIVER_FILES="$nv"
    export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader || true
echo "Vulkan loader: $(ldconfig -p | grep -m1 libvulkan.so.1 || echo none); VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
./target-gpu-viewer/render --bench 2>&1 | tee "$out/render-bench.log" \
    | grep -E '^adapter|^SKIPPED|GPU time|time:|^render|error' || true
# The tests find their reference image relative to the crate directory.
(cd crates/weft-viewer && CI=1 ../../target-gpu-viewer/render-test --nocapture 2>&1) \
    | tee "$out/render-test.log" | grep -E '^adapter|^test |test result|panicked|differs' || true
RUN
chmod +x target-gpu-viewer/run.sh
du -sh target-gpu-viewer .gl 2>/dev/null || true
echo "now: run(command=\"bash target-gpu-viewer/run.sh\", carry=[\".gl\", \"target-gpu-viewer\"])"
