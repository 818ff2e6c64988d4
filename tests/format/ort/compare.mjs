// Stock compatibility (a model with compiled tensors (ModelProto fields
// 27-29) loads in stock ONNX Runtime and gives outputs bit-identical to the same model without
// them. usage: node compare.mjs DIR   (DIR from vtensor-make-compiled-model)
import * as ort from 'onnxruntime-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2];
const x = new Float32Array(2 * 64);  // vtensor-make-compiled-model's default K = 64
for (let i = 0; i < x.length; ++i) x[i] = Math.sin(i * 0.37) * 2.5;
const feeds = { X: new ort.Tensor('float32', x, [2, 64]) };

async function run(name) {
  // Load from bytes as well as from a path: both go through ORT's own protobuf parser.
  const session = await ort.InferenceSession.create(readFileSync(join(dir, name)));
  const out = await session.run(feeds);
  return out.Y.data;
}

const stock = await run('stock.onnx');
const compiled = await run('compiled.onnx');
let failed = 0;
// The f32 panel type's portable decoder (a model-local function of standard ops) rebuilds W.
{
  const raw = readFileSync(join(dir, 'decoder_data.bin'));
  const data = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
  const w = readFileSync(join(dir, 'W.bin'));
  const want = new Float32Array(w.buffer.slice(w.byteOffset, w.byteOffset + w.length));
  const session = await ort.InferenceSession.create(join(dir, 'decoder.onnx'));
  const got = (await session.run({ data: new ort.Tensor('float32', data, [data.length]) })).value.data;
  let same = got.length === want.length;
  for (let i = 0; same && i < got.length; ++i) same = Object.is(got[i], want[i]);
  console.log(`decoder of f32_gemm_panel16 in onnxruntime: ${same ? 'rebuilds W bit-exactly' : 'WRONG'}`);
  if (!same) failed = 1;
}
if (stock.length !== compiled.length) failed = 1;
for (let i = 0; i < stock.length && !failed; ++i)
  if (!Object.is(stock[i], compiled[i])) {
    console.log(`mismatch at ${i}: stock ${stock[i]} compiled ${compiled[i]}`);
    failed = 1;
  }
console.log(`onnxruntime-node ${ort.env.versions.node ?? ''}: Y[${stock.length}] stock vs compiled: ` +
            (failed ? 'DIFFERENT' : 'bit-identical'));
console.log(`${failed ? 0 : 2} passed, ${failed} failed`);
process.exit(failed);
