#!/usr/bin/env node
// Runs each case directory written by `vtensor-gemm-accuracy --write` in ONNX Runtime
// (onnxruntime-node, one thread, all graph optimisations): CASE/model.onnx on CASE/input_0.pb
// (a float TensorProto with raw_data), writing CASE/ort/output_0.pb the same way.
//
// usage: node ort_matmul.js ORT_MODULE_DIR CASE_DIR...
// Exit status: 0 written, 2 error (message on stderr).
'use strict';

const fs = require('fs');
const path = require('path');

function readVarint(buf, pos) {
  let v = 0n, shift = 0n;
  for (;;) {
    const b = buf[pos.i++];
    v |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return v;
    shift += 7n;
  }
}

function writeVarint(n) {
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

// onnx.proto TensorProto fields used here: dims = 1, data_type = 2, name = 8, raw_data = 9.
function decodeFloatTensor(buf) {
  const pos = { i: 0 };
  const dims = [];
  let raw = null, name = '';
  while (pos.i < buf.length) {
    const key = Number(readVarint(buf, pos));
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {
      const v = readVarint(buf, pos);
      if (field === 1) dims.push(Number(v));
    } else if (wire === 2) {
      const len = Number(readVarint(buf, pos));
      const bytes = buf.subarray(pos.i, pos.i + len);
      pos.i += len;
      if (field === 1) {  // packed dims
        const p = { i: 0 };
        while (p.i < bytes.length) dims.push(Number(readVarint(bytes, p)));
      } else if (field === 8) {
        name = bytes.toString('utf8');
      } else if (field === 9) {
        raw = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + len));
      }
    } else if (wire === 5) {
      pos.i += 4;
    } else if (wire === 1) {
      pos.i += 8;
    } else {
      throw new Error(`unexpected wire type ${wire}`);
    }
  }
  if (raw === null) throw new Error('tensor without raw_data');
  return { name, dims, data: raw };
}

function encodeFloatTensor(name, dims, f32) {
  const parts = [];
  for (const d of dims) parts.push(writeVarint(1 << 3), writeVarint(d));
  parts.push(writeVarint(2 << 3), writeVarint(1));  // FLOAT
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(writeVarint((8 << 3) | 2), writeVarint(nameBytes.length), nameBytes);
  const raw = Buffer.from(f32.buffer, f32.byteOffset, f32.byteLength);  // little-endian hosts
  parts.push(writeVarint((9 << 3) | 2), writeVarint(raw.length), raw);
  return Buffer.concat(parts);
}

async function main() {
  const [ortDir, ...cases] = process.argv.slice(2);
  if (!ortDir || cases.length === 0) {
    console.error('usage: node ort_matmul.js ORT_MODULE_DIR CASE_DIR...');
    process.exit(2);
  }
  const ort = require(path.resolve(ortDir));
  for (const dir of cases) {
    const session = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), {
      intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
    });
    const x = decodeFloatTensor(fs.readFileSync(path.join(dir, 'input_0.pb')));
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims) });
    const name = session.outputNames[0];
    fs.mkdirSync(path.join(dir, 'ort'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'ort', 'output_0.pb'),
                     encodeFloatTensor(name, out[name].dims, out[name].data));
  }
}

main().catch((e) => {
  console.error('ort_matmul: ' + (e && e.message ? e.message : e));
  process.exit(2);
});
