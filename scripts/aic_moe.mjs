// scripts/aic_moe.mjs: NVIDIA AIConfigurator's measured MoE layers for the serving engines'
// expert kernels (docs/serving.md "MoE experts (component data)"), written as
// docs/data/aic/moe_serving.csv.
//
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables
// aic-core/src/aiconfigurator_core/systems/data/<gpu>/moe/<engine>/<version>/moe_perf.parquet
// named in TABLES below. Only the rows with distribution "balanced" (every expert receives the
// same tokens), at the token counts in TOKENS and on at most 8 GPUs, are kept.
//
// Run (Node 18+; the parquet reader lives in a scratch directory, never in this repository):
//
//   mkdir -p /tmp/aicconv && cd /tmp/aicconv && npm init -y && npm install hyparquet hyparquet-compressors
//   node <repo>/scripts/aic_moe.mjs /tmp/aicconv <a clone of ai-dynamo/aiconfigurator> \
//       > <repo>/docs/data/aic/moe_serving.csv
//
// Columns: gpu (ridgeline's hardware preset), engine, version, kernel (the table's
// kernel_source), dtype (bf16, fp8 per-tensor, fp8_block 1x128 / 128x128 scales, fp4 NVFP4),
// hidden, inter (one expert's intermediate size before moe_tp splits it), experts, topk,
// moe_tp, ep, tokens (the tokens entering the layer), latency_s (the table's latency in ms
// / 1000: the whole MoE layer as the engine runs it, routing to un-permutation).
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
const TABLES = [
  ['b200', 'b200_sxm', 'trtllm', '1.2.0rc5'],
  ['b200', 'b200_sxm', 'sglang', '0.5.9'],
  ['h100-sxm', 'h100_sxm', 'trtllm', '1.2.0rc5'],
  ['h100-sxm', 'h100_sxm', 'sglang', '0.5.9'],
  ['b200', 'b200_sxm', 'vllm', '0.19.0'],
  ['h100-sxm', 'h100_sxm', 'vllm', '0.19.0'],
  ['h200', 'h200_sxm', 'sglang', '0.5.9'],
  ['h200', 'h200_sxm', 'trtllm', '1.2.0rc5'],
  ['h200', 'h200_sxm', 'vllm', '0.19.0'],
  // the Grace-Blackwell and B300 tables have no TensorRT-LLM 1.2.0rc5: 1.3.0rc10
  ['gb200', 'gb200', 'sglang', '0.5.9'],
  ['gb200', 'gb200', 'trtllm', '1.3.0rc10'],
  ['gb200', 'gb200', 'vllm', '0.19.0'],
  ['gb300', 'gb300', 'sglang', '0.5.9'],
  ['gb300', 'gb300', 'trtllm', '1.3.0rc10'],
  ['gb300', 'gb300', 'vllm', '0.19.0'],
  ['b300', 'b300_sxm', 'sglang', '0.5.9'],
  ['b300', 'b300_sxm', 'trtllm', '1.3.0rc10'],
  ['b300', 'b300_sxm', 'vllm', '0.19.0'],
];
// the compute-bound token counts (docs/serving.md "MoE experts"), on at most 8 GPUs
const TOKENS = new Set([4096, 16384]);
const KERNELS = new Set(['moe_torch_flow_cutlass', 'moe_torch_flow', 'deepgemm', 'sglang_fused_moe_triton',
                         'sglang_flashinfer_cutedsl_moe', 'vllm_fused_moe',
                         'vllm_flashinfer_trtllm_moe_fp4']);
const DTYPE = {bfloat16: 'bf16', fp8: 'fp8', fp8_block: 'fp8_block', nvfp4: 'fp4'};
console.log('gpu,engine,version,kernel,dtype,hidden,inter,experts,topk,moe_tp,ep,tokens,latency_s');
for (const [gpu, dir, engine, version] of TABLES) {
  const buf = execFileSync('git', ['-C', repo, 'show',
                                   `HEAD:${D}/${dir}/moe/${engine}/${version}/moe_perf.parquet`],
                           {maxBuffer: 1 << 28});
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const rows = await parquetReadObjects({file, compressors});
  const out = [];
  for (const r of rows) {
    const t = Number(r.num_tokens);
    if (r.distribution !== 'balanced' || !TOKENS.has(t) || !KERNELS.has(r.kernel_source) ||
        !(r.moe_dtype in DTYPE) || Number(r.moe_tp_size) * Number(r.moe_ep_size) > 8)
      continue;
    out.push([gpu, engine, version, r.kernel_source, DTYPE[r.moe_dtype], Number(r.hidden_size),
              Number(r.inter_size), Number(r.num_experts), Number(r.topk), Number(r.moe_tp_size),
              Number(r.moe_ep_size), t, (Number(r.latency) / 1000).toExponential(6)].join(','));
  }
  out.sort();
  for (const l of out) console.log(l);
}
