#!/usr/bin/env node
// Runs an onnxruntime-genai form decoder (vtensor-gen-transformer --form genai) in ONNX Runtime
// (onnxruntime-node) for a prompt and STEPS greedy decode steps, and writes each step's inputs
// and ORT's outputs as an ONNX backend-test data set (OUT_DIR/step_K/input_N.pb in session input
// order, output_N.pb in output order), so that `vtensor run MODEL --data OUT_DIR/step_K` checks
// vtensor's logits and present KV caches step by step against ORT.
//
// Step 0 is the prefill: input_ids [1, P], attention_mask of ones, empty past caches
// [1, kv_heads, 0, head_size]. PROMPT is either a length P (id i = (37 i + 11) mod vocab) or the
// ids themselves, comma-separated (the prompt_ids `vtensor generate` prints). Step k > 0 feeds
// the argmax of the last logits row, a mask of P + k ones and ORT's presents of step k-1 as the
// pasts.
// Also prints the greedy ids (one line "ids: ...").
//
// usage: node genai_ort_reference.js ORT_MODULE_DIR MODEL OUT_DIR PROMPT STEPS
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

// onnx.proto TensorProto: dims = 1 (varint), data_type = 2 (FLOAT 1, INT64 7), name = 8,
// raw_data = 9 (little-endian hosts).
function encodeTensorProto(name, dims, data) {
  const parts = [];
  for (const d of dims) parts.push(varint(1 << 3), varint(d));
  parts.push(varint(2 << 3), varint(data instanceof BigInt64Array ? 7 : 1));
  const nameBytes = Buffer.from(name, 'utf8');
  parts.push(varint((8 << 3) | 2), varint(nameBytes.length), nameBytes);
  const raw = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  parts.push(varint((9 << 3) | 2), varint(raw.length), raw);
  return Buffer.concat(parts);
}

function argmaxLastRow(t) {
  const vocab = t.dims[2];
  const base = (t.dims[1] - 1) * vocab;
  let best = 0;
  for (let v = 1; v < vocab; ++v) if (t.data[base + v] > t.data[base + best]) best = v;
  return best;
}

async function main() {
  const [ortDir, model, outDir, promptArg, stepsArg] = process.argv.slice(2);
  const given = promptArg && promptArg.includes(',') ? promptArg.split(',').map(Number) : null;
  const promptLen = given ? given.length : Number(promptArg), steps = Number(stepsArg);
  if (!ortDir || !model || !outDir || !(promptLen >= 1) || !(steps >= 0) ||
      (given && !given.every((v) => Number.isInteger(v) && v >= 0))) {
    console.error('usage: node genai_ort_reference.js ORT_MODULE_DIR MODEL OUT_DIR PROMPT STEPS');
    process.exit(2);
  }
  const ort = require(path.resolve(ortDir));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const meta = (name) => session.inputMetadata?.find?.((m) => m.name === name);
  // KV dims from the first past input's static dims [batch, kv_heads, past, head_size].
  const pastNames = session.inputNames.filter((n) => n.startsWith('past_key_values.'));
  const m0 = meta(pastNames[0]);
  const kvHeads = m0 ? m0.shape[1] : Number(process.env.KV_HEADS);
  const headSize = m0 ? m0.shape[3] : Number(process.env.HEAD_SIZE);
  const vocabMeta = session.outputMetadata?.find?.((m) => m.name === 'logits');
  const vocab = vocabMeta ? vocabMeta.shape[2] : Number(process.env.VOCAB);
  if (!(kvHeads > 0 && headSize > 0 && vocab > 0)) throw new Error('cannot read kv_heads / head_size / vocab');

  let ids = given || Array.from({ length: promptLen }, (_, i) => (37 * i + 11) % vocab);
  let past = {};
  for (const n of pastNames) past[n] = new ort.Tensor('float32', new Float32Array(0), [1, kvHeads, 0, headSize]);
  let total = 0;
  const generated = [];
  for (let step = 0; step <= steps; ++step) {
    total += ids.length;
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(total).fill(1n), [1, total]),
      ...past,
    };
    const out = await session.run(feeds);
    const dir = path.join(outDir, `step_${step}`);
    fs.mkdirSync(dir, { recursive: true });
    session.inputNames.forEach((name, i) => {
      const t = feeds[name];
      fs.writeFileSync(path.join(dir, `input_${i}.pb`), encodeTensorProto(name, t.dims, t.data));
    });
    session.outputNames.forEach((name, i) => {
      const t = out[name];
      if (t.type !== 'float32') throw new Error(`output ${name} is ${t.type}, want float32`);
      for (const v of t.data) if (!Number.isFinite(v)) throw new Error(`output ${name} is not finite`);
      fs.writeFileSync(path.join(dir, `output_${i}.pb`), encodeTensorProto(name, t.dims, t.data));
    });
    const next = argmaxLastRow(out.logits);
    generated.push(next);
    ids = [next];
    past = {};
    for (const n of pastNames) past[n] = out[n.replace('past_key_values.', 'present.')];
  }
  console.log(`ORT ${require(path.join(path.resolve(ortDir), 'package.json')).version}: ` +
              `${path.basename(model)} prompt ${promptLen}, ${steps} decode steps`);
  console.log(`ids: ${generated.join(' ')}`);
}

main().catch((e) => {
  console.error('genai_ort_reference: ' + (e && e.message ? e.message : e));
  process.exit(2);
});
