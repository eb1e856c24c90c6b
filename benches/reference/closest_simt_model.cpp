// A host model of how busy a GPU warp stays in the bounded closest-point search of
// `weft::geom::ClosestPoints` (benches/RESULTS.md, "Session 11"): it runs the search
// of each of the benchmark's 1M points on the CPU, records what every step does
// (visit an inner node, or test a triangle), and charges each warp of 32 Morton-sorted
// points, step by step, the union of its threads' work. No GPU needed.
//
//   cargo run --release --example dump_bvh -- DIR      # the sphere and its SAH trees
//   g++ -O2 -o model benches/reference/closest_simt_model.cpp && ./model DIR [max_dist] [node cost] [triangle cost]
//
// It reproduces the queue sizes of `closest_regroup_pass` (to within one query) and
// predicted the gain of testing one triangle per turn (H200: +12 %), but it has no
// memory latency, occupancy or save/restore costs: regrouping after 24 nodes measured
// +12 % where it says +2 %, and resuming saved searches, which it favours, measured
// slower than restarting them. A first filter for ideas, not a throughput estimate.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

typedef unsigned int u32;
struct Node { float lx, ly, lz; u32 left; float ux, uy, uz; u32 rc; };  // BvhNode's layout
struct V3 { float x, y, z; };
const u32 LEAF = 1u << 31;

template <class T> std::vector<T> rd(const std::string& p) {
  FILE* f = fopen(p.c_str(), "rb");
  if (!f) { printf("missing %s (run dump_bvh first)\n", p.c_str()); exit(1); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  std::vector<T> v(n / sizeof(T));
  if (fread(v.data(), 1, n, f) != (size_t)n) { printf("short read %s\n", p.c_str()); exit(1); }
  fclose(f); return v;
}
// The benchmark's points: benches/cuda.rs's generator (splitmix64), uniform in [-2, 2]^3.
std::vector<float> rnd(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n); uint64_t s = seed;
  for (size_t i = 0; i < n; i++) {
    s += 0x9E3779B97F4A7C15ull; uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
    v[i] = lo + (hi - lo) * ((float)(z >> 40) / (float)(1ull << 24));
  }
  return v;
}
static V3 sub(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
static V3 add(V3 a, V3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
static V3 mul(V3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
static float dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static float boxd2(V3 p, const Node& n) {
  float dx = fmaxf(fmaxf(n.lx - p.x, p.x - n.ux), 0.f), dy = fmaxf(fmaxf(n.ly - p.y, p.y - n.uy), 0.f),
        dz = fmaxf(fmaxf(n.lz - p.z, p.z - n.uz), 0.f);
  return dx * dx + dy * dy + dz * dz;
}
// Ericson's closest point on a triangle (the regions of `closest_point_triangle`).
static float tri_d2(V3 p, V3 a, V3 b, V3 c) {
  V3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a), q;
  float d1 = dot(ab, ap), d2 = dot(ac, ap);
  if (d1 <= 0.f && d2 <= 0.f) { q = a; goto done; }
  {
    V3 bp = sub(p, b); float d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.f && d4 <= d3) { q = b; goto done; }
    float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.f && d1 >= 0.f && d3 <= 0.f) { q = add(a, mul(ab, d1 / (d1 - d3))); goto done; }
    V3 cp = sub(p, c); float d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.f && d5 <= d6) { q = c; goto done; }
    float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.f && d2 >= 0.f && d6 <= 0.f) { q = add(a, mul(ac, d2 / (d2 - d6))); goto done; }
    float va = d3 * d6 - d5 * d4;
    if (va <= 0.f && d4 - d3 >= 0.f && d5 - d6 >= 0.f) {
      q = add(b, mul(sub(c, b), (d4 - d3) / ((d4 - d3) + (d5 - d6)))); goto done;
    }
    float inv = 1.f / (va + vb + vc); q = add(a, add(mul(ab, vb * inv), mul(ac, vc * inv)));
  }
done:
  V3 d = sub(q, p); return dot(d, d);
}

std::vector<Node> N; std::vector<V3> T; std::vector<u32> PR;

// One step of a search, flattened as in `mesh_query_point_subtree`: 'n' an inner node,
// 'T' a leaf's first triangle test (with the leaf's visit), 't' its other ones.
// `bound[k]` = the best distance after step k.
struct Trace { std::string steps; std::vector<float> bound; int nodes = 0; };

// The depth-first search from the root with the limit `best` (and answer `bf`).
Trace search(V3 p, float best, int bf) {
  Trace tr; int st[64]; float sd[64]; int sp = 0; int cur = 0;
  bool go = boxd2(p, N[0]) <= best;
  while (go) {
    const Node& n = N[cur]; bool pop = true; tr.nodes++;
    if (n.rc & LEAF) {
      int first = n.left, cnt = n.rc & ~LEAF;
      for (int k = first; k < first + cnt; k++) {
        float d2 = tri_d2(p, T[3 * k], T[3 * k + 1], T[3 * k + 2]);
        if (d2 <= best) { int f = PR[k]; if (d2 < best || bf < 0 || f < bf) { best = d2; bf = f; } }
        tr.steps += k == first ? 'T' : 't'; tr.bound.push_back(best);
      }
    } else {
      tr.steps += 'n'; tr.bound.push_back(best);
      int l = cur + 1, r = n.rc; float dl = boxd2(p, N[l]), dr = boxd2(p, N[r]);
      if (dr < dl) { std::swap(dl, dr); std::swap(l, r); }
      if (dl <= best) { if (dr <= best) { st[sp] = r; sd[sp] = dr; sp++; } cur = l; pop = false; }
    }
    if (pop) { go = false; while (sp > 0) { sp--; if (sd[sp] <= best) { cur = st[sp]; go = true; break; } } }
  }
  return tr;
}

// Lockstep cost of warps of 32 consecutive traces, one step per turn: a turn costs
// `ci` if any thread visits a node and `ct` if any tests a triangle (flattened loop).
double warps_flat(const std::vector<std::string>& q, double ci, double ct) {
  double c = 0;
  for (size_t s0 = 0; s0 < q.size(); s0 += 32) {
    size_t e0 = std::min(q.size(), s0 + 32), L = 0;
    for (size_t l = s0; l < e0; l++) L = std::max(L, q[l].size());
    for (size_t t = 0; t < L; t++) {
      bool an = false, at = false;
      for (size_t l = s0; l < e0; l++) if (t < q[l].size()) (q[l][t] == 'n' ? an : at) = true;
      c += (an ? ci : 0) + (at ? ct : 0);
    }
  }
  return c;
}
// The same for the loop that tests a whole leaf per turn: a turn costs `ci` if any
// thread is at an inner node, plus `ct` times the most triangles of a leaf among them.
double warps_leaf(const std::vector<std::string>& q, double ci, double ct) {
  double c = 0;
  for (size_t s0 = 0; s0 < q.size(); s0 += 32) {
    size_t e0 = std::min(q.size(), s0 + 32);
    std::vector<size_t> pos(e0 - s0, 0);
    for (;;) {
      bool any = false, an = false; int mk = 0;
      for (size_t l = s0; l < e0; l++) {
        const std::string& s = q[l]; size_t& p = pos[l - s0];
        if (p >= s.size()) continue;
        any = true;
        if (s[p] == 'n') { an = true; p++; } else { int k = 1; p++; while (p < s.size() && s[p] == 't') { k++; p++; } mk = std::max(mk, k); }
      }
      if (!any) break;
      c += (an ? ci : 0) + ct * mk;
    }
  }
  return c;
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "target-sass/data";
  float md = argc > 2 ? atof(argv[2]) : 0.2f * sqrtf(3.f);
  double ci = argc > 3 ? atof(argv[3]) : 40, ct = argc > 4 ? atof(argv[4]) : 50;
  auto P = rd<float>(dir + "/points.bin"); auto F = rd<u32>(dir + "/faces.bin");
  N = rd<Node>(dir + "/nodes_c3l8.bin"); PR = rd<u32>(dir + "/prims_c3l8.bin");
  T.resize(3 * PR.size());
  for (size_t k = 0; k < PR.size(); k++)
    for (int j = 0; j < 3; j++) { u32 v = F[3 * PR[k] + j]; T[3 * k + j] = {P[3 * v], P[3 * v + 1], P[3 * v + 2]}; }
  int m = 1 << 20; auto r = rnd(6 * m, 3, -1.f, 1.f);
  std::vector<V3> pts(m);
  for (int i = 0; i < m; i++) pts[i] = {r[6 * i] * 2, r[6 * i + 1] * 2, r[6 * i + 2] * 2};
  auto morton = [](V3 q) {
    auto ex = [](u32 v) { v = (v * 0x00010001u) & 0xFF0000FFu; v = (v * 0x00000101u) & 0x0F00F00Fu;
      v = (v * 0x00000011u) & 0xC30C30C3u; v = (v * 0x00000005u) & 0x49249249u; return v; };
    auto c = [](float x) { return (u32)std::min(1023.f, std::max(0.f, (x + 2.f) / 4.f * 1024.f)); };
    return ex(c(q.x)) * 4 + ex(c(q.y)) * 2 + ex(c(q.z));
  };
  std::sort(pts.begin(), pts.end(), [&](V3 a, V3 b) { return morton(a) < morton(b); });
  std::vector<Trace> tr(m); std::vector<std::string> steps(m);
  double work = 0;
  for (int i = 0; i < m; i++) {
    tr[i] = search(pts[i], md * md, -1); steps[i] = tr[i].steps;
    for (char s : steps[i]) work += s == 'n' ? ci : ct;
  }
  double ideal = work / 32, leaf = warps_leaf(steps, ci, ct), flat = warps_flat(steps, ci, ct);
  printf("max_dist %.4f, node cost %.0f, triangle cost %.0f (warps of 32 Morton-sorted points)\n", md, ci, ct);
  printf("leaf per turn: busy threads %.2f of 1\n", ideal / leaf);
  printf("triangle per turn: busy %.2f, %.2fx faster\n", ideal / flat, leaf / flat);
  // Regrouping: stop after `b` nodes, then the unfinished ones packed in full warps,
  // restarted from the root with their bound (as built) or resumed where they stopped.
  for (int b : {16, 24, 32, 48, 64, 128}) {
    std::vector<std::string> first(m), restart, resume;
    for (int i = 0; i < m; i++) {
      const Trace& t = tr[i]; int nodes = 0; size_t cut = 0;
      for (; cut < t.steps.size(); cut++) {
        if (t.steps[cut] != 't' && ++nodes > b) break;  // an inner node or a leaf
      }
      first[i] = t.steps.substr(0, cut);
      if (cut < t.steps.size()) {
        resume.push_back(t.steps.substr(cut));
        restart.push_back(search(pts[i], t.bound[cut - 1], 0).steps);
      }
    }
    double c1 = warps_flat(first, ci, ct);
    printf("regroup after %3d nodes: %7zu queued; restart %.2fx, resume %.2fx against no regrouping\n", b,
           restart.size(), flat / (c1 + warps_flat(restart, ci, ct)), flat / (c1 + warps_flat(resume, ci, ct)));
  }
  return 0;
}
