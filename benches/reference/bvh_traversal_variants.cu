// CUDA C++ reference for the BVH closest-point and ray searches of `weft::geom` on the benchmark sphere
// (see benches/RESULTS.md, "Session 9"). Trees and mesh from `cargo run --release --example dump_bvh -- DIR`;
// on a GPU machine: `nvcc -O3 -arch=sm_90 bvh_traversal_variants.cu -o variants && ./variants DIR`.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <string>
#include <cmath>
#include <cstring>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
typedef unsigned int u32;
struct Node { float lx, ly, lz; u32 left; float ux, uy, uz; u32 rc; };
struct WNode { float4 a, b, c, d; }; // a: L lo + ref, b: L hi + cnt, c: R lo + ref, d: R hi + cnt
const u32 LEAF = 1u << 31;

template <class T> std::vector<T> rd(const std::string& p) {
  FILE* f = fopen(p.c_str(), "rb"); if (!f) { printf("missing %s\n", p.c_str()); exit(1); }
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  std::vector<T> v(n / sizeof(T)); fread(v.data(), 1, n, f); fclose(f); return v;
}
std::vector<float> rnd(size_t n, uint64_t seed, float lo, float hi) {
  std::vector<float> v(n); uint64_t s = seed;
  for (size_t i = 0; i < n; i++) { s += 0x9E3779B97F4A7C15ull; uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; z ^= z >> 31;
    float u = (float)(z >> 40) / (float)(1ull << 24); v[i] = lo + (hi - lo) * u; }
  return v;
}
__device__ __forceinline__ float3 f3(float4 v) { return make_float3(v.x, v.y, v.z); }
__device__ __forceinline__ float3 sub(float3 a, float3 b) { return make_float3(a.x-b.x, a.y-b.y, a.z-b.z); }
__device__ __forceinline__ float3 add(float3 a, float3 b) { return make_float3(a.x+b.x, a.y+b.y, a.z+b.z); }
__device__ __forceinline__ float3 mul(float3 a, float s) { return make_float3(a.x*s, a.y*s, a.z*s); }
__device__ __forceinline__ float dot(float3 a, float3 b) { return a.x*b.x + a.y*b.y + a.z*b.z; }
__device__ __forceinline__ float3 cross(float3 a, float3 b) { return make_float3(a.y*b.z-a.z*b.y, a.z*b.x-a.x*b.z, a.x*b.y-a.y*b.x); }
__device__ __forceinline__ float boxd2(float3 p, float3 lo, float3 hi) {
  float dx = fmaxf(fmaxf(lo.x - p.x, p.x - hi.x), 0.f);
  float dy = fmaxf(fmaxf(lo.y - p.y, p.y - hi.y), 0.f);
  float dz = fmaxf(fmaxf(lo.z - p.z, p.z - hi.z), 0.f);
  return dx*dx + dy*dy + dz*dz;
}
__device__ float cpt_d2(float3 p, float3 a, float3 b, float3 c) {
  float3 ab = sub(b, a), ac = sub(c, a), ap = sub(p, a);
  float d1 = dot(ab, ap), d2 = dot(ac, ap);
  float3 q;
  if (d1 <= 0.f && d2 <= 0.f) { q = a; goto done; }
  { float3 bp = sub(p, b); float d3 = dot(ab, bp), d4 = dot(ac, bp);
  if (d3 >= 0.f && d4 <= d3) { q = b; goto done; }
  float vc = d1*d4 - d3*d2;
  if (vc <= 0.f && d1 >= 0.f && d3 <= 0.f) { float s = d1 / (d1 - d3); q = add(a, mul(ab, s)); goto done; }
  float3 cp = sub(p, c); float d5 = dot(ab, cp), d6 = dot(ac, cp);
  if (d6 >= 0.f && d5 <= d6) { q = c; goto done; }
  float vb = d5*d2 - d1*d6;
  if (vb <= 0.f && d2 >= 0.f && d6 <= 0.f) { float s = d2 / (d2 - d6); q = add(a, mul(ac, s)); goto done; }
  float va = d3*d6 - d5*d4;
  if (va <= 0.f && d4 - d3 >= 0.f && d5 - d6 >= 0.f) { float s = (d4-d3) / ((d4-d3) + (d5-d6)); q = add(b, mul(sub(c, b), s)); goto done; }
  float inv = 1.f / (va + vb + vc); q = add(a, add(mul(ab, vb*inv), mul(ac, vc*inv))); }
done:
  float3 d = sub(q, p); return dot(d, d);
}
#define SD 32
// ---- A: binary nodes, children read at the parent, local stack of (node, d2)
__global__ void cp_A(const Node* __restrict__ nodes, const float4* __restrict__ tris, const u32* __restrict__ prims,
                     const float3* __restrict__ pts, int n, float maxd, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float3 p = pts[i];
  float best = maxd * maxd; int bf = -1;
  int st[SD]; float sd[SD]; int sp = 0;
  const float4* N4 = (const float4*)nodes;
  float4 a = __ldg(N4), b = __ldg(N4 + 1);
  int cur = 0;
  bool go = boxd2(p, f3(a), f3(b)) <= best;
  u32 rc = __float_as_uint(b.w), lf = __float_as_uint(a.w);
  while (go) {
    bool pop = true;
    if (rc & LEAF) {
      int first = lf, cnt = rc & ~LEAF;
      for (int k = first; k < first + cnt; k++) {
        float4 t0 = __ldg(tris + 3*k), t1 = __ldg(tris + 3*k+1), t2 = __ldg(tris + 3*k+2);
        float d2 = cpt_d2(p, f3(t0), f3(t1), f3(t2));
        if (d2 <= best) { int f = prims[k]; if (d2 < best || bf < 0 || f < bf) { best = d2; bf = f; } }
      }
    } else {
      int l = cur + 1, r = rc;
      float4 la = __ldg(N4 + 2*l), lb = __ldg(N4 + 2*l+1), ra = __ldg(N4 + 2*r), rb = __ldg(N4 + 2*r+1);
      float dl = boxd2(p, f3(la), f3(lb)), dr = boxd2(p, f3(ra), f3(rb));
      if (dr < dl) { float t = dl; dl = dr; dr = t; int ti = l; l = r; r = ti; float4 x = la; la = ra; ra = x; x = lb; lb = rb; rb = x; }
      if (dl <= best) {
        if (dr <= best) { st[sp] = r; sd[sp] = dr; sp++; }
        cur = l; rc = __float_as_uint(lb.w); lf = __float_as_uint(la.w); pop = false;
      }
    }
    if (pop) {
      go = false;
      while (sp > 0) { sp--; if (sd[sp] <= best) { cur = st[sp]; go = true; break; } }
      if (go) { float4 x = __ldg(N4 + 2*cur), y = __ldg(N4 + 2*cur+1); lf = __float_as_uint(x.w); rc = __float_as_uint(y.w); }
    }
  }
  out[i] = bf;
}
// ---- B: wide-2 nodes (children's boxes in the parent), stack of (ref, d2)
// ref: inner node index, or LEAF | first << 4 | count
__device__ __forceinline__ u32 leafref(float4 lo, float4 hi) {
  u32 cnt = __float_as_uint(hi.w); u32 idx = __float_as_uint(lo.w);
  return cnt ? (LEAF | (idx << 4) | cnt) : idx;
}
__global__ void cp_B(const WNode* __restrict__ w, const float4* __restrict__ tris, const u32* __restrict__ prims,
                     const float3* __restrict__ pts, int n, float maxd, float3 rlo, float3 rhi, int root_leaf, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float3 p = pts[i];
  float best = maxd * maxd; int bf = -1;
  int st[SD]; float sd[SD]; int sp = 0;
  const float4* W = (const float4*)w;
  u32 cur = 0;
  bool go = boxd2(p, rlo, rhi) <= best;
  while (go) {
    bool pop = true;
    if (cur & LEAF) {
      int first = (cur & ~LEAF) >> 4, cnt = cur & 15;
      for (int k = first; k < first + cnt; k++) {
        float4 t0 = __ldg(tris + 3*k), t1 = __ldg(tris + 3*k+1), t2 = __ldg(tris + 3*k+2);
        float d2 = cpt_d2(p, f3(t0), f3(t1), f3(t2));
        if (d2 <= best) { int f = prims[k]; if (d2 < best || bf < 0 || f < bf) { best = d2; bf = f; } }
      }
    } else {
      float4 la = __ldg(W + 4*cur), lb = __ldg(W + 4*cur+1), ra = __ldg(W + 4*cur+2), rb = __ldg(W + 4*cur+3);
      float dl = boxd2(p, f3(la), f3(lb)), dr = boxd2(p, f3(ra), f3(rb));
      u32 l = leafref(la, lb), r = leafref(ra, rb);
      if (dr < dl) { float t = dl; dl = dr; dr = t; u32 ti = l; l = r; r = ti; }
      if (dl <= best) {
        if (dr <= best) { st[sp] = r; sd[sp] = dr; sp++; }
        cur = l; pop = false;
      }
    }
    if (pop) {
      go = false;
      while (sp > 0) { sp--; if (sd[sp] <= best) { cur = st[sp]; go = true; break; } }
    }
  }
  out[i] = bf;
}

#define SH 16
struct Shift { u32 i[SH]; float d[SH]; int n; };
__device__ __forceinline__ void spush(Shift& s, u32 v, float d) {
#pragma unroll
  for (int k = SH - 1; k > 0; k--) { s.i[k] = s.i[k-1]; s.d[k] = s.d[k-1]; }
  s.i[0] = v; s.d[0] = d; s.n = min(s.n + 1, SH);
}
__device__ __forceinline__ bool spop(Shift& s, u32& v, float& d) {
  if (s.n == 0) return false;
  v = s.i[0]; d = s.d[0];
#pragma unroll
  for (int k = 0; k < SH - 1; k++) { s.i[k] = s.i[k+1]; s.d[k] = s.d[k+1]; }
  s.n--; return true;
}
__global__ void cp_C(const WNode* __restrict__ w, const float4* __restrict__ tris, const u32* __restrict__ prims,
                     const float3* __restrict__ pts, int n, float maxd, float3 rlo, float3 rhi, int* steps, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float3 p = pts[i];
  float best = maxd * maxd; int bf = -1;
  Shift s; s.n = 0;
  const float4* W = (const float4*)w;
  u32 cur = 0; int ns = 0;
  bool go = boxd2(p, rlo, rhi) <= best;
  while (go) {
    bool pop = true; ns++;
    if (cur & LEAF) {
      int first = (cur & ~LEAF) >> 4, cnt = cur & 15;
      for (int k = first; k < first + cnt; k++) {
        float4 t0 = __ldg(tris + 3*k), t1 = __ldg(tris + 3*k+1), t2 = __ldg(tris + 3*k+2);
        float d2 = cpt_d2(p, f3(t0), f3(t1), f3(t2));
        if (d2 <= best) { int f = prims[k]; if (d2 < best || bf < 0 || f < bf) { best = d2; bf = f; } }
      }
    } else {
      float4 la = __ldg(W + 4*cur), lb = __ldg(W + 4*cur+1), ra = __ldg(W + 4*cur+2), rb = __ldg(W + 4*cur+3);
      float dl = boxd2(p, f3(la), f3(lb)), dr = boxd2(p, f3(ra), f3(rb));
      u32 l = leafref(la, lb), r = leafref(ra, rb);
      if (dr < dl) { float t = dl; dl = dr; dr = t; u32 ti = l; l = r; r = ti; }
      if (dl <= best) {
        if (dr <= best) spush(s, r, dr);
        cur = l; pop = false;
      }
    }
    if (pop) {
      go = false; u32 v; float d;
      while (spop(s, v, d)) { if (d <= best) { cur = v; go = true; break; } }
    }
  }
  if (steps) steps[i] = ns;
  out[i] = bf;
}
// ---- rays
__device__ __forceinline__ bool rayhit(float3 t0, float3 t1, float3 t2, float3 o, float3 d, float& t) {
  float3 e1 = sub(t1, t0), e2 = sub(t2, t0), pv = cross(d, e2); float det = dot(e1, pv);
  if (det == 0.f) return false;
  float inv = 1.f / det; float3 s = sub(o, t0); float u = dot(s, pv) * inv; float3 q = cross(s, e1);
  float v = dot(d, q) * inv; t = dot(e2, q) * inv;
  return u >= 0.f && v >= 0.f && u + v <= 1.f && t >= 0.f;
}
__device__ __forceinline__ float slab(float3 lo, float3 hi, float3 o, float3 inv, float tmax, bool& hit) {
  float tx0 = (lo.x - o.x) * inv.x, tx1 = (hi.x - o.x) * inv.x;
  float ty0 = (lo.y - o.y) * inv.y, ty1 = (hi.y - o.y) * inv.y;
  float tz0 = (lo.z - o.z) * inv.z, tz1 = (hi.z - o.z) * inv.z;
  float nr = fmaxf(fmaxf(fminf(tx0, tx1), fminf(ty0, ty1)), fmaxf(fminf(tz0, tz1), 0.f));
  float fr = fminf(fminf(fmaxf(tx0, tx1), fmaxf(ty0, ty1)), fminf(fmaxf(tz0, tz1), tmax));
  hit = nr <= fr; return nr;
}
__device__ __forceinline__ void ray_gen(int i, int mode, const float3* O, const float3* D, float3& o, float3& d) {
  if (mode == 0) { o = O[i]; d = D[i]; }
  else { int w = 1024; int y = i / w, x = i % w; float u = (x + 0.5f) / w * 2.f - 1.f, v = (y + 0.5f) / w * 2.f - 1.f;
    o = make_float3(0.3f, 0.2f, 3.f); float3 dd = make_float3(u * 0.6f - 0.15f, v * 0.6f - 0.1f, -1.5f);
    float l = rsqrtf(dot(dd, dd)); d = mul(dd, l); }
}
__global__ void ray_B(const WNode* __restrict__ w, const float4* __restrict__ tris, const u32* __restrict__ prims,
                      const float3* O, const float3* D, int n, int mode, float3 rlo, float3 rhi, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  float3 o, d; ray_gen(i, mode, O, D, o, d);
  float3 inv = make_float3(1.f / d.x, 1.f / d.y, 1.f / d.z);
  float best = 1e6f; int bf = -1;
  int st[SD]; float sd[SD]; int sp = 0;
  const float4* W = (const float4*)w;
  u32 cur = 0; bool h; slab(rlo, rhi, o, inv, best, h); bool go = h;
  while (go) {
    bool pop = true;
    if (cur & LEAF) {
      int first = (cur & ~LEAF) >> 4, cnt = cur & 15;
      for (int k = first; k < first + cnt; k++) {
        float4 t0 = __ldg(tris + 3*k), t1 = __ldg(tris + 3*k+1), t2 = __ldg(tris + 3*k+2); float t;
        if (rayhit(f3(t0), f3(t1), f3(t2), o, d, t) && t <= best) { int f = prims[k]; if (t < best || bf < 0 || f < bf) { best = t; bf = f; } }
      }
    } else {
      float4 la = __ldg(W + 4*cur), lb = __ldg(W + 4*cur+1), ra = __ldg(W + 4*cur+2), rb = __ldg(W + 4*cur+3);
      bool hl, hr; float tl = slab(f3(la), f3(lb), o, inv, best, hl), tr = slab(f3(ra), f3(rb), o, inv, best, hr);
      u32 l = leafref(la, lb), r = leafref(ra, rb);
      if (tr < tl) { float t = tl; tl = tr; tr = t; u32 ti = l; l = r; r = ti; bool hb = hl; hl = hr; hr = hb; }
      if (hl) { if (hr) { st[sp] = r; sd[sp] = tr; sp++; } cur = l; pop = false; }
      else if (hr) { cur = r; pop = false; }
    }
    if (pop) { go = false; while (sp > 0) { sp--; if (sd[sp] <= best) { cur = st[sp]; go = true; break; } } }
  }
  out[i] = best;
}

int main(int argc, char** argv) {
  std::string dir = argc > 1 ? argv[1] : "target-exp";
  const char* cfgs[] = {"c3l8", "c2l4"};
  auto P = rd<float>(dir + "/points.bin"); auto F = rd<u32>(dir + "/faces.bin");
  int m = 1 << 20;
  auto r = rnd(6 * m, 3, -1.f, 1.f);
  std::vector<float3> org(m), drs(m);
  for (int i = 0; i < m; i++) { org[i] = make_float3(r[6*i]*2, r[6*i+1]*2, r[6*i+2]*2);
    drs[i] = make_float3(r[6*i+3]*0.7f - org[i].x, r[6*i+4]*0.7f - org[i].y, r[6*i+5]*0.7f - org[i].z); }
  float3 *dO, *dD; CK(cudaMalloc(&dO, m * 12)); CK(cudaMalloc(&dD, m * 12));
  CK(cudaMemcpy(dO, org.data(), m * 12, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dD, drs.data(), m * 12, cudaMemcpyHostToDevice));

  std::vector<float3> so = org;
  auto mort = [](float3 q) { auto ex = [](u32 v) { v = (v * 0x00010001u) & 0xFF0000FFu; v = (v * 0x00000101u) & 0x0F00F00Fu; v = (v * 0x00000011u) & 0xC30C30C3u; v = (v * 0x00000005u) & 0x49249249u; return v; };
    auto c = [](float x) { return (u32)std::min(1023.f, std::max(0.f, (x + 2.f) / 4.f * 1024.f)); };
    return ex(c(q.x)) * 4 + ex(c(q.y)) * 2 + ex(c(q.z)); };
  std::sort(so.begin(), so.end(), [&](float3 a, float3 b) { return mort(a) < mort(b); });
  float3* dS; CK(cudaMalloc(&dS, m * 12)); CK(cudaMemcpy(dS, so.data(), m * 12, cudaMemcpyHostToDevice));
  int* dsteps; CK(cudaMalloc(&dsteps, m * 4));
  int* dout; CK(cudaMalloc(&dout, m * 4)); float* fout; CK(cudaMalloc(&fout, m * 4));
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto timeit = [&](auto launch) { launch(); CK(cudaDeviceSynchronize()); std::vector<float> ts;
    for (int k = 0; k < 10; k++) { cudaEventRecord(e0); launch(); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); ts.push_back(ms); }
    std::sort(ts.begin(), ts.end()); CK(cudaGetLastError()); return ts[5]; };
  std::vector<int> ref_unb, ref_b;
  for (auto cfg : cfgs) {
    auto N = rd<Node>(dir + "/nodes_" + cfg + ".bin"); auto PR = rd<u32>(dir + "/prims_" + std::string(cfg) + ".bin");
    std::vector<float4> T(3 * PR.size());
    for (size_t k = 0; k < PR.size(); k++) for (int j = 0; j < 3; j++) { u32 v = F[3*PR[k]+j]; T[3*k+j] = make_float4(P[3*v], P[3*v+1], P[3*v+2], 0.f); }
    std::vector<WNode> W(N.size());
    auto slot = [&](u32 c, float4& lo, float4& hi) { const Node& x = N[c];
      bool leaf = x.rc & LEAF; u32 idx = leaf ? x.left : c; u32 cnt = leaf ? (x.rc & ~LEAF) : 0;
      float fi, fc; memcpy(&fi, &idx, 4); memcpy(&fc, &cnt, 4);
      lo = make_float4(x.lx, x.ly, x.lz, fi); hi = make_float4(x.ux, x.uy, x.uz, fc); };
    for (size_t k = 0; k < N.size(); k++) if (!(N[k].rc & LEAF)) { slot(k + 1, W[k].a, W[k].b); slot(N[k].rc, W[k].c, W[k].d); }
    Node* dN; float4* dT; u32* dP; WNode* dW;
    CK(cudaMalloc(&dN, N.size() * 32)); CK(cudaMalloc(&dT, T.size() * 16)); CK(cudaMalloc(&dP, PR.size() * 4)); CK(cudaMalloc(&dW, W.size() * 64));
    CK(cudaMemcpy(dN, N.data(), N.size() * 32, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dT, T.data(), T.size() * 16, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dP, PR.data(), PR.size() * 4, cudaMemcpyHostToDevice)); CK(cudaMemcpy(dW, W.data(), W.size() * 64, cudaMemcpyHostToDevice));
    float3 rlo = make_float3(N[0].lx, N[0].ly, N[0].lz), rhi = make_float3(N[0].ux, N[0].uy, N[0].uz);
    float tenth = 0.2f * sqrtf(3.f);
    for (int bs : {128}) {
      int g = (m + bs - 1) / bs;
      for (float md : {INFINITY, tenth}) {
        float ta = timeit([&] { cp_A<<<g, bs>>>(dN, dT, dP, dO, m, md, dout); });
        std::vector<int> ra(m); CK(cudaMemcpy(ra.data(), dout, m * 4, cudaMemcpyDeviceToHost));
        float tb = timeit([&] { cp_B<<<g, bs>>>(dW, dT, dP, dO, m, md, rlo, rhi, 0, dout); });
        std::vector<int> rb(m); CK(cudaMemcpy(rb.data(), dout, m * 4, cudaMemcpyDeviceToHost));
        auto& ref = md == INFINITY ? ref_unb : ref_b; if (ref.empty()) ref = ra;
        int da = 0, db = 0; for (int k = 0; k < m; k++) { da += ra[k] != ref[k]; db += rb[k] != ref[k]; }
        printf("%s bs%d closest %-9s A %.3f ms %6.1f M/s | B %.3f ms %6.1f M/s  (diff vs ref: %d %d)\n", cfg, bs,
               md == INFINITY ? "unbounded" : "10%", ta, m / ta / 1e3, tb, m / tb / 1e3, da, db);

        float tc = timeit([&] { cp_C<<<g, bs>>>(dW, dT, dP, dO, m, md, rlo, rhi, nullptr, dout); });
        std::vector<int> rc(m); CK(cudaMemcpy(rc.data(), dout, m * 4, cudaMemcpyDeviceToHost));
        int dc = 0; for (int k = 0; k < m; k++) dc += rc[k] != ref[k];
        float ts = timeit([&] { cp_B<<<g, bs>>>(dW, dT, dP, dS, m, md, rlo, rhi, 0, dout); });
        printf("   C (shift stack) %.3f ms %6.1f M/s (diff %d) | B on Morton-sorted points %.3f ms %6.1f M/s\n", tc, m / tc / 1e3, dc, ts, m / ts / 1e3);
        if (bs == 128) {
          cp_C<<<g, bs>>>(dW, dT, dP, dO, m, md, rlo, rhi, dsteps, dout); CK(cudaDeviceSynchronize());
          std::vector<int> stp(m); CK(cudaMemcpy(stp.data(), dsteps, m * 4, cudaMemcpyDeviceToHost));
          double sum = 0, wsum = 0; int mx = 0; for (int k = 0; k < m; k++) { sum += stp[k]; mx = std::max(mx, stp[k]); }
          for (int wv = 0; wv < m / 32; wv++) { int wm = 0; for (int l = 0; l < 32; l++) wm = std::max(wm, stp[32*wv+l]); wsum += 32.0 * wm; }
          std::vector<int> srt = stp; std::sort(srt.begin(), srt.end());
          printf("   steps: mean %.1f, p50 %d, p99 %d, p99.99 %d, max %d; SIMT efficiency %.2f\n", sum / m, srt[m/2], srt[m*99/100], srt[m - m/10000], mx, sum / wsum);
        }
      }
      for (int mode : {0, 1}) {
        float tb = timeit([&] { ray_B<<<g, bs>>>(dW, dT, dP, dO, dD, m, mode, rlo, rhi, fout); });
        printf("%s bs%d rays %-6s B %.3f ms %6.0f Mrays/s\n", cfg, bs, mode ? "camera" : "random", tb, m / tb / 1e3);
      }
    }
    cudaFree(dN); cudaFree(dT); cudaFree(dP); cudaFree(dW);
  }
  return 0;
}
