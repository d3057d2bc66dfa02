// scripts/aic_decode_attention.mjs: NVIDIA AIConfigurator's measured decode attention kernels
// for the serving engines (docs/serving.md "Decode attention"), written as
// docs/data/aic/decode_attention.csv.
//
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables
// aic-core/src/aiconfigurator_core/systems/data/<gpu>/attention/<engine>/<version>/
// generation_attention_perf.parquet named in TABLES below: the rows of the kernel KERNEL names,
// head_dim 128, bf16 attention over a bf16 KV cache, batch <= 256 and context (isl + step)
// 64-16384, at the batch sizes in BATCH and the head counts in HEADS.
//
// Run (Node 18+; the parquet reader lives in a scratch directory, never in this repository):
//
//   mkdir -p /tmp/aicconv && cd /tmp/aicconv && npm init -y && npm install hyparquet hyparquet-compressors
//   node <repo>/scripts/aic_decode_attention.mjs /tmp/aicconv <a clone of ai-dynamo/aiconfigurator> \
//       > <repo>/docs/data/aic/decode_attention.csv
//
// Columns: gpu (ridgeline's hardware preset), engine, version, kernel (the table's
// kernel_source), batch, context (tokens of KV each sequence attends to), heads, kv_heads,
// head_dim, latency_s (the table's latency in ms / 1000: one layer's call, in a CUDA graph).
import path from 'node:path';
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';
import {execFileSync} from 'node:child_process';

const [scratch, repo] = process.argv.slice(2);
const resolveIn = createRequire(path.join(path.resolve(scratch), 'package.json'));
const mod = (name) => import(pathToFileURL(resolveIn.resolve(name)).href);
const {parquetReadObjects} = await mod('hyparquet');
const {compressors} = await mod('hyparquet-compressors');

const D = 'aic-core/src/aiconfigurator_core/systems/data';
// [preset, AIConfigurator's chip, engine, version, kernel]: vLLM 0.14.0 where measured (B200:
// 0.19.0, FlashInfer, vLLM's default attention backend on Blackwell), SGLang 0.5.9,
// TensorRT-LLM 1.2.0rc5 (GB200: 1.3.0rc10, its table has no 1.2.0rc5)
const TABLES = [
  ['h100-sxm', 'h100_sxm', 'vllm', '0.14.0', 'vllm_flash_attn'],
  ['h100-sxm', 'h100_sxm', 'sglang', '0.5.9', 'flash_attention'],
  ['h100-sxm', 'h100_sxm', 'trtllm', '1.2.0rc5', 'torch_flow'],
  ['h200', 'h200_sxm', 'vllm', '0.14.0', 'vllm_flash_attn'],
  ['h200', 'h200_sxm', 'sglang', '0.5.9', 'flash_attention'],
  ['h200', 'h200_sxm', 'trtllm', '1.2.0rc5', 'torch_flow'],
  ['b200', 'b200_sxm', 'vllm', '0.19.0', 'vllm_flashinfer'],
  ['b200', 'b200_sxm', 'sglang', '0.5.9', 'trtllm_mha'],
  ['b200', 'b200_sxm', 'trtllm', '1.2.0rc5', 'torch_flow'],
  ['gb200', 'gb200', 'vllm', '0.14.0', 'vllm_flashinfer'],
  ['gb200', 'gb200', 'sglang', '0.5.9', 'trtllm_mha'],
  ['gb200', 'gb200', 'trtllm', '1.3.0rc10', 'torch_flow'],
];
const BATCH = new Set([1, 4, 16, 64, 256]);
const HEADS = new Set(['8/1', '8/8', '32/8', '64/8', '64/1', '32/4']);
console.log('gpu,engine,version,kernel,batch,context,heads,kv_heads,head_dim,latency_s');
for (const [gpu, dir, engine, version, kernel] of TABLES) {
  const buf = execFileSync('git', ['-C', repo, 'show',
                                   `HEAD:${D}/${dir}/attention/${engine}/${version}/generation_attention_perf.parquet`],
                           {maxBuffer: 1 << 28});
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const rows = await parquetReadObjects({file, compressors});
  const out = [];
  for (const r of rows) {
    const b = Number(r.batch_size), ctx = Number(r.isl) + Number(r.step);
    const h = Number(r.num_heads), k = Number(r.num_key_value_heads);
    if (r.kernel_source !== kernel || Number(r.head_dim) !== 128 || r.attn_dtype !== 'bfloat16' ||
        r.kv_cache_dtype !== 'bfloat16' || !BATCH.has(b) || ctx < 64 || ctx > 16384 ||
        !HEADS.has(`${h}/${k}`))
      continue;
    out.push([gpu, engine, version, kernel, b, ctx, h, k, 128,
              (Number(r.latency) / 1000).toExponential(6)].join(','));
  }
  out.sort();
  for (const l of out) console.log(l);
}
