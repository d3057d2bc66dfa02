// scripts/aic_components.mjs: NVIDIA AIConfigurator's measured per-operation data for the
// H100 SXM as validation points (never fitted) in presets/validation/components.json
// (docs/calibration.md, "AIConfigurator per-operation data (H100 SXM)").
//
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables under
// aic-core/src/aiconfigurator_core/systems/data/h100_sxm/. Only the per-operation tables named
// in TABLES below are read; the end-to-end systems/silicon_sample.csv is not used.
//
// Run (Node 18+; the parquet reader lives in a scratch directory, never in this repository):
//
//   mkdir -p /tmp/aicconv && cd /tmp/aicconv && npm init -y && npm install hyparquet hyparquet-compressors
//   A=<a clone of ai-dynamo/aiconfigurator>; D=aic-core/src/aiconfigurator_core/systems/data/h100_sxm
//   mkdir -p gemm/trtllm/1.3.0rc20 comm/nccl/2.29.2 comm/trtllm/1.3.0rc20
//   git -C $A show HEAD:$D/gemm/trtllm/1.3.0rc20/gemm_perf.parquet > gemm/trtllm/1.3.0rc20/gemm_perf.parquet
//   git -C $A show HEAD:$D/comm/nccl/2.29.2/nccl_perf.parquet > comm/nccl/2.29.2/nccl_perf.parquet
//   git -C $A show HEAD:$D/comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet \
//       > comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet
//   node <repo>/scripts/aic_components.mjs /tmp/aicconv <repo>/presets/validation/components.json \
//       $(git -C $A log -1 --format=%H)
//
// The parquet reader is resolved from <scratch dir>/node_modules. The script replaces the points whose source starts with
// "ai-dynamo/aiconfigurator" and keeps every other point's text as it is.
//
// Conversions (the units of the existing points):
//   gemm: latency in ms (CUDA-graph replay of TRT-LLM's Linear, weights rotated past L2);
//         measured = 2 m n k / latency in FLOP/s. fp8 is per-tensor FP8 with dynamic
//         activation quantisation (the collector's note: its time includes the scale step).
//   collective: nccl-tests' out-of-place time in ms; message_size is in elements of the
//         dtype (half, 2 bytes; the custom all-reduce: bfloat16), so bytes = 2 x message_size,
//         the full buffer (all_gather: the gathered output, as nccl-tests' size).
//         measured = bus bandwidth as nccl-tests defines it: algbw = bytes / time, times
//         2(n-1)/n for all_reduce and (n-1)/n for all_gather.

import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [scratch, componentsPath, commit] = process.argv.slice(2);
if (!scratch || !componentsPath || !/^[0-9a-f]{40}$/.test(commit ?? '')) {
  console.error('usage: node aic_components.mjs SCRATCH_DIR components.json AIC_COMMIT');
  process.exit(2);
}
const resolveIn = createRequire(path.join(path.resolve(scratch), 'package.json'));
const mod = (name) => import(pathToFileURL(resolveIn.resolve(name)).href);
const { parquetReadObjects } = await mod('hyparquet');
const { compressors } = await mod('hyparquet-compressors');

const DATA = 'aic-core/src/aiconfigurator_core/systems/data/h100_sxm';
const TABLES = {
  gemm: 'gemm/trtllm/1.3.0rc20/gemm_perf.parquet',
  nccl: 'comm/nccl/2.29.2/nccl_perf.parquet',
  custom: 'comm/trtllm/1.3.0rc20/custom_allreduce_perf.parquet',
};
const SRC = `ai-dynamo/aiconfigurator@${commit.slice(0, 12)}`;

async function read(rel) {
  const b = fs.readFileSync(path.join(scratch, rel));
  const file = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  return parquetReadObjects({ file, compressors });
}
const num = (x) => Number(x); // int64 columns come back as BigInt
const round4 = (x) => Number(x.toPrecision(4));
const size = (bytes) =>
  bytes >= 1 << 20 ? `${bytes / (1 << 20)} MiB` : bytes >= 1 << 10 ? `${bytes / (1 << 10)} KiB` : `${bytes} B`;

const points = [];

// GEMM: a square family at n = k = 8192 over the batch dimension m (1: weight streaming, a
// decode step; 16384: a prefill), the ends of the 4096 and 16384 families.
const GEMM_SHAPES = [
  ...[1, 16, 64, 128, 256, 512, 1024, 4096, 16384].map((m) => [m, 8192, 8192]),
  [1, 4096, 4096], [256, 4096, 4096], [4096, 4096, 4096],
  [32, 16384, 16384], [8192, 16384, 16384],
];
{
  const rows = await read(TABLES.gemm);
  for (const [dtype, precision] of [['bfloat16', 'bf16'], ['fp8', 'fp8']])
    for (const [m, n, k] of GEMM_SHAPES) {
      const r = rows.find((r) => r.gemm_dtype === dtype && num(r.m) === m && num(r.n) === n && num(r.k) === k);
      if (!r) throw new Error(`no ${dtype} ${m}x${n}x${k} in ${TABLES.gemm}`);
      const seconds = r.latency * 1e-3;
      points.push({
        name: `AIC H100 TRT-LLM Linear ${precision} ${m}x${n}x${k}`,
        kind: 'gemm',
        hardware: 'h100-sxm',
        precision,
        m, n, k,
        measured: round4((2 * m * n * k) / seconds),
        fitted: false,
        source: `${SRC} ${DATA}/${TABLES.gemm} (engine trtllm 1.3.0rc20, gemm_dtype ${dtype}${
          dtype === 'fp8' ? ', per-tensor with dynamic activation quantisation' : ''}): ` +
          `latency ${r.latency.toPrecision(4)} ms; 2mnk / latency`,
      });
    }
}

const busFactor = (op, n) => (op === 'all_reduce' ? (2 * (n - 1)) / n : (n - 1) / n);
function collective(r, table, label, opName) {
  const n = num(r.num_gpus);
  const bytes = 2 * num(r.message_size);
  const seconds = r.latency * 1e-3;
  return {
    name: `AIC DGX H100 ${label} ${opName} ${n} GPUs ${size(bytes)}`,
    kind: 'collective',
    cluster: { base: 'dgx-h100', devices: 8 },
    op: opName === 'all_reduce' ? 'allreduce' : 'allgather',
    group: n,
    bytes,
    measured: round4((bytes / seconds) * busFactor(opName, n)),
    fitted: false,
    source: `${SRC} ${DATA}/${table}: ${opName}, ${n} GPUs, message_size ${num(r.message_size)} ` +
      `elements x 2 B, latency ${(seconds * 1e6).toPrecision(4)} us; nccl-tests bus bandwidth`,
  };
}

// NCCL 2.29.2 (nccl-tests, half): all_reduce from 16 KiB to 256 MiB, all_gather 64 KiB to 256 MiB.
{
  const rows = await read(TABLES.nccl);
  const SIZES = {
    all_reduce: [16 << 10, 256 << 10, 1 << 20, 16 << 20, 64 << 20, 256 << 20],
    all_gather: [64 << 10, 1 << 20, 16 << 20, 256 << 20],
  };
  for (const op of ['all_reduce', 'all_gather'])
    for (const n of [2, 4, 8])
      for (const bytes of SIZES[op]) {
        const r = rows.find((r) => r.op_name === op && r.nccl_dtype === 'half' && num(r.num_gpus) === n &&
          2 * num(r.message_size) === bytes);
        if (!r) throw new Error(`no NCCL ${op} ${n} ${bytes}`);
        points.push(collective(r, TABLES.nccl, 'NCCL 2.29.2', op));
      }
}

// TensorRT-LLM's custom all-reduce (1.3.0rc20, bfloat16, CUDA graphs) at the small messages it
// serves (from 8 MiB on its times are NCCL's).
{
  const rows = await read(TABLES.custom);
  for (const n of [2, 4, 8])
    for (const bytes of [16 << 10, 256 << 10, 1 << 20]) {
      const r = rows.find((r) => num(r.num_gpus) === n && 2 * num(r.message_size) === bytes);
      if (!r) throw new Error(`no custom all_reduce ${n} ${bytes}`);
      points.push(collective(r, TABLES.custom, 'TRT-LLM custom', 'all_reduce'));
    }
}

// Splice: keep the text of every point not from AIConfigurator, append the new ones (the
// file's style: one-space indentation, one point object per array element).
const text = fs.readFileSync(componentsPath, 'utf8');
const open = text.indexOf('"points": [');
const close = text.lastIndexOf(']');
const objects = [];
for (let i = text.indexOf('[', open) + 1, depth = 0, start = -1, inStr = false; i < close; ++i) {
  const c = text[i];
  if (inStr) {
    if (c === '\\') ++i;
    else if (c === '"') inStr = false;
  } else if (c === '"') inStr = true;
  else if (c === '{' && depth++ === 0) start = i;
  else if (c === '}' && --depth === 0) objects.push(text.slice(start, i + 1));
}
const kept = objects.filter((o) => !JSON.parse(o).source?.startsWith('ai-dynamo/aiconfigurator'));
const indent = (o) => JSON.stringify(o, null, 1).replace(/\n/g, '\n  ');
const body = [...kept, ...points.map(indent)].map((o) => '  ' + o).join(',\n');
fs.writeFileSync(componentsPath, text.slice(0, text.indexOf('[', open) + 1) + '\n' + body + '\n ' + text.slice(close));
const count = (k) => points.filter((p) => p.kind === k).length;
console.log(`${points.length} points (gemm ${count('gemm')}, collective ${count('collective')}); kept ${kept.length}`);
