// Times one ONNX model in ONNX Runtime (CPU, from the npm package onnxruntime-node) for
// bench_vs_ort.py. Usage: node ort_runner.js SPEC.json
// SPEC: {"ort": path to the onnxruntime-node package, "model": .onnx, "threads": n,
//        "warmup": n, "loop": n, "inputs": [{"name", "dtype", "dims", "file" (raw bytes)}]}
// Prints one JSON line: {"times_ms": [...]} (one entry per timed run, session creation and
// warm-up excluded). With "profile": PREFIX in SPEC, ONNX Runtime's profiler writes its per-node
// trace to PREFIX*.json (bench/profile_vs_ort.py reads it).
'use strict';
const fs = require('fs');

const TYPED = {
  float32: Float32Array, int64: BigInt64Array, int32: Int32Array, float16: Uint16Array,
};

async function main() {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const ort = require(spec.ort);
  const session = await ort.InferenceSession.create(spec.model, {
    intraOpNumThreads: spec.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    ...(spec.profile ? { enableProfiling: true, profileFilePrefix: spec.profile } : {}),
  });
  const feeds = {};
  for (const inp of spec.inputs) {
    const buf = fs.readFileSync(inp.file);
    const Ctor = TYPED[inp.dtype];
    const data = new Ctor(buf.buffer, buf.byteOffset, buf.byteLength / Ctor.BYTES_PER_ELEMENT);
    feeds[inp.name] = new ort.Tensor(inp.dtype, data, inp.dims);
  }
  for (let i = 0; i < spec.warmup; i++) await session.run(feeds);
  const times = [];
  for (let i = 0; i < spec.loop; i++) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  if (spec.profile && session.endProfiling) session.endProfiling();
  await session.release();
  process.stdout.write(JSON.stringify({ times_ms: times }) + '\n');
}

main().catch((e) => { console.error(String(e)); process.exit(1); });
