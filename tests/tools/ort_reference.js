#!/usr/bin/env node
// Runs a model with one f32 input in ONNX Runtime (onnxruntime-node) and writes the input and
// ORT's outputs as an ONNX backend-test data set (DIR/input_0.pb, DIR/output_N.pb), so that
// `vtensor run MODEL --data DIR` compares vtensor against ORT. The input is deterministic:
// x[i] = sin(0.37 * i + 0.1) (values in [-1, 1], no PRNG shared with the generator).
//
// usage: node ort_reference.js ORT_MODULE_DIR MODEL OUT_DIR D0xD1x...
// Exit status: 0 written, 2 error (message on stderr).
'use strict';

const fs = require('fs');
const path = require('path');

function varint(n) {  // non-negative integer (Number or BigInt) -> protobuf varint bytes
  let v = BigInt(n);
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

// onnx.proto TensorProto: dims = 1 (varint), data_type = 2, name = 8, raw_data = 9.
function encodeTensorProto(name, dims, f32) {
  const parts = [];
  for (const d of dims) parts.push(varint(1 << 3), varint(d));
  parts.push(varint(2 << 3), varint(1));  // FLOAT
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(varint((8 << 3) | 2), varint(nameBytes.length), nameBytes);
  const raw = Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength);  // little-endian hosts
  parts.push(varint((9 << 3) | 2), varint(raw.length), raw);
  return Buffer.concat(parts);
}

async function main() {
  const [ortDir, model, outDir, shapeArg] = process.argv.slice(2);
  if (!ortDir || !model || !outDir || !shapeArg) {
    console.error('usage: node ort_reference.js ORT_MODULE_DIR MODEL OUT_DIR D0xD1x...');
    process.exit(2);
  }
  const dims = shapeArg.split('x').map((s) => {
    const d = Number(s);
    if (!Number.isInteger(d) || d < 1) throw new Error(`bad dim '${s}' in shape '${shapeArg}'`);
    return d;
  });
  const ort = require(path.resolve(ortDir));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  if (session.inputNames.length !== 1) throw new Error(`model has ${session.inputNames.length} inputs, want 1`);
  const n = dims.reduce((a, b) => a * b, 1);
  const x = new Float32Array(n);
  for (let i = 0; i < n; ++i) x[i] = Math.sin(0.37 * i + 0.1);
  const inName = session.inputNames[0];
  const out = await session.run({ [inName]: new ort.Tensor('float32', x, dims) });
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'input_0.pb'), encodeTensorProto(inName, dims, x));
  session.outputNames.forEach((name, i) => {
    const t = out[name];
    if (t.type !== 'float32') throw new Error(`output ${name} is ${t.type}, want float32`);
    for (const v of t.data) if (!Number.isFinite(v)) throw new Error(`output ${name} is not finite`);
    fs.writeFileSync(path.join(outDir, `output_${i}.pb`), encodeTensorProto(name, t.dims, t.data));
  });
  console.log(`ORT ${require(path.join(path.resolve(ortDir), 'package.json')).version}: ` +
              `${path.basename(model)} ${inName}[${dims.join(',')}] -> ${session.outputNames.join(', ')}`);
}

main().catch((e) => {
  console.error('ort_reference: ' + (e && e.message ? e.message : e));
  process.exit(2);
});
