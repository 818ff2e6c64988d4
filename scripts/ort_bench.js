#!/usr/bin/env node
// Times one model in ONNX Runtime (onnxruntime-node), single thread, on the inputs of an ONNX
// backend-test data directory (DIR/input_N.pb, N in graph-input order), the way
// `vtensor bench` does: untimed warmup runs, then the median of N timed runs.
//
// usage: node ort_bench.js ORT_MODULE_DIR MODEL DATA_DIR RUNS [WARMUP]
// Prints one JSON line: {"median_ms":..,"min_ms":..,"create_ms":..,"max_abs_diff":[..]}
// where max_abs_diff compares each output with DIR/output_N.pb when present (a sanity check
// that ORT saw the same inputs as vtensor).
'use strict';

const fs = require('fs');
const path = require('path');

// --- Minimal TensorProto decoder (onnx.proto, message TensorProto) ---------------------------
// Only what backend-test input files use: dims, data_type, raw_data and the typed fields.

const DTYPES = {
  1: { name: 'float32', bytes: 4, Array: Float32Array },
  2: { name: 'uint8', bytes: 1, Array: Uint8Array },
  3: { name: 'int8', bytes: 1, Array: Int8Array },
  5: { name: 'int16', bytes: 2, Array: Int16Array },
  6: { name: 'int32', bytes: 4, Array: Int32Array },
  7: { name: 'int64', bytes: 8, Array: BigInt64Array },
  9: { name: 'bool', bytes: 1, Array: Uint8Array },
  11: { name: 'float64', bytes: 8, Array: Float64Array },
  12: { name: 'uint32', bytes: 4, Array: Uint32Array },
  13: { name: 'uint64', bytes: 8, Array: BigUint64Array },
};

class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  done() { return this.pos >= this.buf.length; }
  varint() {  // as BigInt: int64 dims and values need all 64 bits
    let result = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return BigInt.asIntN(64, result);
      shift += 7n;
    }
  }
  bytes() {
    const n = Number(this.varint());
    if (this.pos + n > this.buf.length) throw new Error('truncated field');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error('unsupported wire type ' + wire);
  }
}

// Repeated scalar field, packed (wire 2) or not.
function readRepeated(r, wire, readOne, out) {
  if (wire !== 2) { out.push(readOne(r)); return; }
  const sub = new Reader(r.bytes());
  while (!sub.done()) out.push(readOne(sub));
}
const fixed32f = (r) => { const v = r.buf.readFloatLE(r.pos); r.pos += 4; return v; };
const fixed64d = (r) => { const v = r.buf.readDoubleLE(r.pos); r.pos += 8; return v; };
const varintOf = (r) => r.varint();

function decodeTensorProto(buf) {
  const r = new Reader(buf);
  const t = { dims: [], dataType: 0, raw: null, floats: [], int32s: [], int64s: [], doubles: [], uint64s: [] };
  while (!r.done()) {
    const key = Number(r.varint());
    const field = key >>> 3, wire = key & 7;
    switch (field) {
      case 1: readRepeated(r, wire, varintOf, t.dims); break;
      case 2: t.dataType = Number(r.varint()); break;
      case 4: readRepeated(r, wire, fixed32f, t.floats); break;
      case 5: readRepeated(r, wire, varintOf, t.int32s); break;
      case 7: readRepeated(r, wire, varintOf, t.int64s); break;
      case 9: t.raw = r.bytes(); break;
      case 10: readRepeated(r, wire, fixed64d, t.doubles); break;
      case 11: readRepeated(r, wire, varintOf, t.uint64s); break;
      case 14: throw new Error('external data is not supported in input files');
      default: r.skip(wire);
    }
  }
  const dt = DTYPES[t.dataType];
  if (!dt) throw new Error('unsupported data_type ' + t.dataType);
  const dims = t.dims.map(Number);
  const n = dims.reduce((a, b) => a * b, 1);
  let data;
  if (t.raw) {
    if (t.raw.length !== n * dt.bytes) throw new Error(`raw_data has ${t.raw.length} bytes, want ${n * dt.bytes}`);
    // Copy into an aligned buffer: the slice of the file buffer may be misaligned.
    data = new dt.Array(n);
    Buffer.from(data.buffer).set(t.raw);
  } else {
    const src = { 1: t.floats, 11: t.doubles, 7: t.int64s, 13: t.uint64s }[t.dataType] || t.int32s;
    if (src.length !== n) throw new Error(`typed data has ${src.length} values, want ${n}`);
    data = new dt.Array(n);
    for (let i = 0; i < n; ++i) {
      const v = src[i];
      data[i] = (dt.Array === BigInt64Array) ? BigInt.asIntN(64, BigInt(v))
              : (dt.Array === BigUint64Array) ? BigInt.asUintN(64, BigInt(v)) : Number(v);
    }
  }
  return { type: dt.name, data, dims };
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let m = 0;
  for (let i = 0; i < a.length; ++i) {
    const x = Number(a[i]), y = Number(b[i]);
    if (Number.isNaN(x) && Number.isNaN(y)) continue;
    const d = Math.abs(x - y);
    if (!(d <= m)) m = d;  // also catches NaN against a number
  }
  return m;
}

async function main() {
  const [ortDir, model, dataDir, runsArg, warmupArg] = process.argv.slice(2);
  if (!ortDir || !model || !dataDir || !runsArg) {
    console.error('usage: node ort_bench.js ORT_MODULE_DIR MODEL DATA_DIR RUNS [WARMUP]');
    process.exit(2);
  }
  const runs = Math.max(1, parseInt(runsArg, 10));
  const warmup = warmupArg === undefined ? 2 : parseInt(warmupArg, 10);
  const ort = require(path.resolve(ortDir));

  const opts = {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  };
  const t0 = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(model, opts);
  const createMs = Number(process.hrtime.bigint() - t0) / 1e6;

  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const t = decodeTensorProto(fs.readFileSync(path.join(dataDir, `input_${i}.pb`)));
    feeds[name] = new ort.Tensor(t.type, t.data, t.dims);
  });

  let out;
  for (let i = 0; i < warmup; ++i) out = await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const b = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - b) / 1e6);
  }
  times.sort((a, b) => a - b);

  const diffs = session.outputNames.map((name, i) => {
    const p = path.join(dataDir, `output_${i}.pb`);
    if (!fs.existsSync(p)) return null;
    return maxAbsDiff(out[name].data, decodeTensorProto(fs.readFileSync(p)).data);
  });
  console.log(JSON.stringify({
    median_ms: times[Math.floor(times.length / 2)],
    min_ms: times[0],
    create_ms: createMs,
    max_abs_diff: diffs,
  }));
}

main().catch((e) => {
  console.error('ort_bench: ' + (e && e.message ? e.message : e));
  process.exit(2);
});
