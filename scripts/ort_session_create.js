#!/usr/bin/env node
// ONNX Runtime (onnxruntime-node) session-creation time for `vtensor bench-load`:
// creates an InferenceSession for MODEL REPS times (1 intra-op thread, 1 inter-op thread,
// default graph optimizations, the CPU execution provider), releasing each, and prints the
// best (minimum) creation time. A stock ONNX parser skips vtensor's compiled-tensor fields
// (27-29), so a compiled model loads here exactly like its source model.
//
// usage: node ort_session_create.js NODE_MODULES_DIR MODEL REPS
//   NODE_MODULES_DIR  directory holding onnxruntime-node/ (e.g. the one scripts/compare_ort.sh
//                     installs: ~/.cache/vtensor/ort/onnxruntime-node-1.30.0/node_modules)
// Prints one JSON line: {"best_ms":..,"all_ms":[..],"hwm_kb":..,"version":".."}; hwm_kb is the
// node process's peak RSS (it includes node itself). Exit 2 on a usage or load error.
'use strict';

const path = require('path');

async function main() {
  const [modDir, model, repsArg] = process.argv.slice(2);
  const reps = Number(repsArg);
  if (!modDir || !model || !Number.isInteger(reps) || reps < 1) {
    console.error('usage: node ort_session_create.js NODE_MODULES_DIR MODEL REPS');
    process.exit(2);
  }
  const ortPath = path.join(modDir, 'onnxruntime-node');
  const ort = require(ortPath);
  const version = require(path.join(ortPath, 'package.json')).version;
  const opts = {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  };
  const all = [];
  for (let i = 0; i < reps; ++i) {
    const t0 = process.hrtime.bigint();
    const s = await ort.InferenceSession.create(model, opts);
    const t1 = process.hrtime.bigint();
    all.push(Number(t1 - t0) / 1e6);
    if (s.release) await s.release();
  }
  const hwmKb = process.resourceUsage().maxRSS;  // kilobytes on Linux
  console.log(JSON.stringify({ best_ms: Math.min(...all), all_ms: all, hwm_kb: hwmKb, version }));
}

main().catch((e) => {
  console.error(`ort_session_create: ${e && e.message ? e.message : e}`);
  process.exit(2);
});
