#!/usr/bin/env node
// Runs every reference model under WORK_DIR (WORK_DIR/<case>/model.onnx with input_N.pb) in ONNX
// Runtime (onnxruntime-node, CPU, one thread) and writes output_N.pb beside it, or error.txt
// with ORT's message when ORT cannot load or run the model.
//
// usage: node ort_run.js ORT_MODULE_DIR WORK_DIR
'use strict';

const fs = require('fs');
const path = require('path');

// onnx.proto TensorProto fields: dims 1, data_type 2, string_data 6, name 8, raw_data 9.
const ORT_TYPE = {1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32',
  7: 'int64', 8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64'};
const ONNX_TYPE = Object.fromEntries(Object.entries(ORT_TYPE).map(([k, v]) => [v, Number(k)]));
const ARRAY = {float32: Float32Array, uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array,
  int16: Int16Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
  float16: Uint16Array, float64: Float64Array, uint32: Uint32Array, uint64: BigUint64Array};

function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return [v, pos];
    shift += 7n;
  }
}

function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) b |= 0x80;
    out.push(b);
  } while (v > 0n);
  return Buffer.from(out);
}

function decodeTensor(buf) {
  const t = {dims: [], type: 0, strings: [], raw: Buffer.alloc(0)};
  let pos = 0;
  while (pos < buf.length) {
    let key;
    [key, pos] = readVarint(buf, pos);
    const field = Number(key >> 3n), wire = Number(key & 7n);
    if (wire === 0) {
      let v;
      [v, pos] = readVarint(buf, pos);
      if (field === 1) t.dims.push(Number(v));
      else if (field === 2) t.type = Number(v);
    } else if (wire === 2) {
      let len;
      [len, pos] = readVarint(buf, pos);
      const bytes = buf.subarray(pos, pos + Number(len));
      pos += Number(len);
      if (field === 1) {  // packed dims
        let p = 0;
        while (p < bytes.length) { let v; [v, p] = readVarint(bytes, p); t.dims.push(Number(v)); }
      } else if (field === 6) t.strings.push(bytes.toString('utf8'));
      else if (field === 9) t.raw = Buffer.from(bytes);
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return t;
}

function toOrtTensor(ort, t) {
  const type = ORT_TYPE[t.type];
  if (!type) throw new Error(`input element type ${t.type} not supported by the Node binding`);
  if (type === 'string') return new ort.Tensor('string', t.strings, t.dims);
  const A = ARRAY[type];
  const copy = new Uint8Array(t.raw);  // aligned copy
  return new ort.Tensor(type, new A(copy.buffer, 0, copy.byteLength / A.BYTES_PER_ELEMENT), t.dims);
}

function encodeTensor(name, tensor) {
  const type = ONNX_TYPE[tensor.type];
  if (!type) throw new Error(`output ${name} has type ${tensor.type}`);
  const parts = [];
  for (const d of tensor.dims) parts.push(varint(1 << 3), varint(d));
  parts.push(varint(2 << 3), varint(type));
  if (tensor.type === 'string') {
    for (const s of tensor.data) {
      const b = Buffer.from(s, 'utf8');
      parts.push(varint((6 << 3) | 2), varint(b.length), b);
    }
  }
  const nb = Buffer.from(name, 'utf8');
  parts.push(varint((8 << 3) | 2), varint(nb.length), nb);
  if (tensor.type !== 'string') {
    const d = tensor.data;
    const raw = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    parts.push(varint((9 << 3) | 2), varint(raw.length), raw);
  }
  return Buffer.concat(parts);
}

async function runCase(ort, dir) {
  const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'disabled',
    logSeverityLevel: 4,  // failures are recorded in error.txt
  });
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    feeds[name] = toOrtTensor(ort, decodeTensor(fs.readFileSync(path.join(dir, `input_${i}.pb`))));
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, i) => {
    fs.writeFileSync(path.join(dir, `output_${i}.pb`), encodeTensor(name, out[name]));
  });
  await session.release();
}

async function main() {
  const [ortDir, work] = process.argv.slice(2);
  const ort = require(path.resolve(ortDir));
  const dirs = fs.readdirSync(work).sort();
  let ok = 0;
  for (const d of dirs) {
    const dir = path.join(work, d);
    try {
      await runCase(ort, dir);
      ++ok;
    } catch (e) {
      fs.writeFileSync(path.join(dir, 'error.txt'), String(e && e.message ? e.message : e));
    }
  }
  console.log(`ort_run: ${ok} of ${dirs.length} models ran in ONNX Runtime ` +
              require(path.join(path.resolve(ortDir), 'package.json')).version);
}

main().catch((e) => {
  console.error('ort_run: ' + (e && e.message ? e.message : e));
  process.exit(2);
});
