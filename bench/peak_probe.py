"""Single-core fp32 FMA peak of this host for a target's vector width, measured by a small C
probe (12 independent FMA chains, enough to cover latency x throughput on current x86 cores),
compiled with gcc. The .om is built for --soc_version, so the width is the target's: 512 bits
for x86-64-v4 (or native on an AVX-512 host), 256 bits otherwise."""
import json
import os
import subprocess

PROBE = r"""
#include <immintrin.h>
#include <stdio.h>
#include <time.h>
#if WIDTH == 512
typedef __m512 V;
#define SET1 _mm512_set1_ps
#define FMA _mm512_fmadd_ps
#define LANES 16
#else
typedef __m256 V;
#define SET1 _mm256_set1_ps
#define FMA _mm256_fmadd_ps
#define LANES 8
#endif
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
  /* distinct starting values and every chain opaque to the compiler: identical chains
     would be merged (CSE), and fewer than ~8 chains measure FMA latency, not throughput */
  V a0 = SET1(1.f), a1 = SET1(2.f), a2 = SET1(3.f), a3 = SET1(4.f), a4 = SET1(5.f),
    a5 = SET1(6.f), a6 = SET1(7.f), a7 = SET1(8.f), a8 = SET1(9.f), a9 = SET1(10.f),
    a10 = SET1(11.f), a11 = SET1(12.f), m = SET1(0.9999999f), c = SET1(1e-7f);
  long iters = 20000000;
  double best = 0;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    for (long i = 0; i < iters; i++) {
      a0 = FMA(a0, m, c); a1 = FMA(a1, m, c); a2 = FMA(a2, m, c); a3 = FMA(a3, m, c);
      a4 = FMA(a4, m, c); a5 = FMA(a5, m, c); a6 = FMA(a6, m, c); a7 = FMA(a7, m, c);
      a8 = FMA(a8, m, c); a9 = FMA(a9, m, c); a10 = FMA(a10, m, c); a11 = FMA(a11, m, c);
      __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5));
      __asm__ volatile("" : "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
    }
    double g = 12.0 * LANES * 2 * iters / (now() - t0) / 1e9;
    if (g > best) best = g;
  }
  V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;
  float out[LANES];
  __builtin_memcpy(out, &s, sizeof out);
  printf("%.2f %g\n", best, (double)out[0]);
  return 0;
}
"""


def cpu_name():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def host_has_avx512():
    with open("/proc/cpuinfo") as f:
        return " avx512f" in f.read()


def target_width(soc):
    """The profile's vector width: "vector_bits", else 512 when its features enable AVX-512F
    (user profiles in $ATC_TARGETS_PATH first, then kernels/targets), as atc decides it."""
    if soc == "native":
        return 512 if host_has_avx512() else 256
    here = os.path.dirname(os.path.abspath(__file__))
    dirs = [d for d in os.environ.get("ATC_TARGETS_PATH", "").split(":") if d]
    dirs.append(os.path.join(here, "..", "kernels", "targets"))
    for d in dirs:
        f = os.path.join(d, soc + ".json")
        if not os.path.isfile(f):
            continue
        with open(f) as fh:
            j = json.load(fh)
        if j.get("vector_bits") in (256, 512):
            return j["vector_bits"]
        feats = j.get("features", [])
        if isinstance(feats, str):
            feats = feats.split(",")
        avx512 = evex_off = False
        for x in feats:  # the last mention of a feature wins
            if x in ("+avx512f", "-avx512f"):
                avx512 = x[0] == "+"
            if x in ("+evex512", "-evex512"):
                evex_off = x[0] == "-"
        return 512 if avx512 and not evex_off else 256
    return 256


def measure(soc, cache):
    width = target_width(soc)
    if width == 512 and not host_has_avx512():
        return {"isa": "avx512 (host cannot run it)", "gflops": float("nan")}
    os.makedirs(cache, exist_ok=True)
    src = os.path.join(cache, "peak_probe.c")
    exe = os.path.join(cache, "peak_probe_%d" % width)
    with open(src, "w") as f:
        f.write(PROBE)
    flags = ["-mavx512f"] if width == 512 else ["-mavx2", "-mfma"]
    subprocess.run(["gcc", "-O2", "-DWIDTH=%d" % width] + flags + [src, "-o", exe], check=True)
    out = subprocess.run([exe], check=True, stdout=subprocess.PIPE, text=True).stdout
    return {"isa": "avx512 fma" if width == 512 else "avx2 fma", "gflops": float(out.split()[0])}
