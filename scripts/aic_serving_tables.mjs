// scripts/aic_serving_tables.mjs: NVIDIA AIConfigurator's measured per-operation tables the
// serving engines' presets are fitted to, as CSV (docs/data/aic/README.md):
//
//   moe               -> docs/data/aic/moe_serving.csv (docs/serving.md "MoE experts")
//   decode_attention  -> docs/data/aic/decode_attention.csv (docs/serving.md "Decode attention")
//   context_attention -> docs/data/aic/context_attention.csv (docs/serving.md "Prefill attention")
//
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the parquet tables each part names.
//
// Run (Node 18+; the parquet reader lives in a scratch directory, never in this repository):
//
//   mkdir -p /tmp/aicconv && cd /tmp/aicconv && npm init -y && npm install hyparquet hyparquet-compressors
//   node <repo>/scripts/aic_serving_tables.mjs /tmp/aicconv <a clone of ai-dynamo/aiconfigurator> moe \
//       > <repo>/docs/data/aic/moe_serving.csv
//   node <repo>/scripts/aic_serving_tables.mjs /tmp/aicconv <a clone of ai-dynamo/aiconfigurator> \
//       decode_attention > <repo>/docs/data/aic/decode_attention.csv
//   node <repo>/scripts/aic_serving_tables.mjs /tmp/aicconv <a clone of ai-dynamo/aiconfigurator> \
//       context_attention > <repo>/docs/data/aic/context_attention.csv
import path from 'node:path';
import {createRequire} from 'node:module';
import {pathToFileURL} from 'node:url';
import {execFileSync} from 'node:child_process';

const [scratch, repo, part] = process.argv.slice(2);
const resolveIn = createRequire(path.join(path.resolve(scratch), 'package.json'));
const mod = (name) => import(pathToFileURL(resolveIn.resolve(name)).href);
const {parquetReadObjects} = await mod('hyparquet');
const {compressors} = await mod('hyparquet-compressors');
const D = 'aic-core/src/aiconfigurator_core/systems/data';

// The rows of one table of the snapshot.
async function table(rel) {
  const buf = execFileSync('git', ['-C', repo, 'show', `HEAD:${D}/${rel}`], {maxBuffer: 1 << 28});
  const file = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  return parquetReadObjects({file, compressors});
}

// [moe]
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables
// aic-core/src/aiconfigurator_core/systems/data/<gpu>/moe/<engine>/<version>/moe_perf.parquet
// named in MOE_TABLES below. Only the rows with distribution "balanced" (every expert receives the
// same tokens), at the token counts in TOKENS and on at most 8 GPUs, are kept.
//
// Columns: gpu (ridgeline's hardware preset), engine, version, kernel (the table's
// kernel_source), dtype (bf16, fp8 per-tensor, fp8_block 1x128 / 128x128 scales, fp4 NVFP4),
// hidden, inter (one expert's intermediate size before moe_tp splits it), experts, topk,
// moe_tp, ep, tokens (the tokens entering the layer), latency_s (the table's latency in ms
// / 1000: the whole MoE layer as the engine runs it, routing to un-permutation).
async function moe() {
  const MOE_TABLES = [
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
  for (const [gpu, dir, engine, version] of MOE_TABLES) {
    const rows = await table(`${dir}/moe/${engine}/${version}/moe_perf.parquet`);
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
}

// [decode_attention]
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables
// aic-core/src/aiconfigurator_core/systems/data/<gpu>/attention/<engine>/<version>/
// generation_attention_perf.parquet named in ATTENTION_TABLES below: the rows of the kernel each names,
// head_dim 128, bf16 attention over a bf16 KV cache, batch <= 256 and context (isl + step)
// 64-16384, at the batch sizes in BATCH and the head counts in HEADS.
//
// Columns: gpu (ridgeline's hardware preset), engine, version, kernel (the table's
// kernel_source), batch, context (tokens of KV each sequence attends to), heads, kv_heads,
// head_dim, latency_s (the table's latency in ms / 1000: one layer's call, in a CUDA graph).
async function decodeAttention() {
  // [preset, AIConfigurator's chip, engine, version, kernel]: vLLM 0.14.0 where measured (B200:
  // 0.19.0, FlashInfer, vLLM's default attention backend on Blackwell), SGLang 0.5.9,
  // TensorRT-LLM 1.2.0rc5 (GB200: 1.3.0rc10, its table has no 1.2.0rc5)
  const ATTENTION_TABLES = [
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
  for (const [gpu, dir, engine, version, kernel] of ATTENTION_TABLES) {
    const rows = await table(`${dir}/attention/${engine}/${version}/generation_attention_perf.parquet`);
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
}

// [context_attention]
// Source: github.com/ai-dynamo/aiconfigurator (Apache-2.0), the tables
// aic-core/src/aiconfigurator_core/systems/data/<gpu>/attention/<engine>/<version>/
// context_attention_perf.parquet (GQA, head_dim 128) and .../mla/<engine>/<version>/
// context_mla_perf.parquet (DeepSeek's MLA: q/k head dim 192, v 128) named in CONTEXT_TABLES
// below: a prompt's attention over itself (step 0), batch 1 and 4, prompts of 1,024 to 16,384
// tokens, each engine's default kernel with a bf16 and with an FP8 KV cache (GQA: the kernel's
// bf16 attention over each; TensorRT-LLM's FP8 KV runs its FP8 context FMHA, fp8/fp8).
//
// Columns: gpu (ridgeline's hardware preset), engine, version, kernel (the table's
// kernel_source), attention (gqa or mla), kv (the KV cache's dtype: bf16 or fp8), batch, isl
// (the prompt's tokens), heads (query heads on the GPU), kv_heads (GQA; MLA: 1), qk_dim,
// v_dim, latency_s (the table's latency in ms / 1000: one layer's attention call).
async function contextAttention() {
  // [preset, AIConfigurator's chip, engine, version, GQA kernel, MLA table's version or '']
  const CONTEXT_TABLES = [
    ['h100-sxm', 'h100_sxm', 'vllm', '0.14.0', 'vllm_flash_attn', '0.14.0'],
    ['h100-sxm', 'h100_sxm', 'sglang', '0.5.9', 'flash_attention', '0.5.9'],
    ['h100-sxm', 'h100_sxm', 'trtllm', '1.2.0rc5', 'torch_flow', '1.2.0rc5'],
    ['h200', 'h200_sxm', 'vllm', '0.14.0', 'vllm_flash_attn', '0.14.0'],
    ['h200', 'h200_sxm', 'sglang', '0.5.9', 'flash_attention', '0.5.9'],
    ['h200', 'h200_sxm', 'trtllm', '1.2.0rc5', 'torch_flow', '1.2.0rc5'],
    ['b200', 'b200_sxm', 'vllm', '0.19.0', 'vllm_flashinfer', ''],
    ['b200', 'b200_sxm', 'sglang', '0.5.9', 'trtllm_mha', '0.5.9'],
    ['b200', 'b200_sxm', 'trtllm', '1.2.0rc5', 'torch_flow', '1.2.0rc5'],
  ];
  const BATCH = new Set([1, 4]);
  const ISL = new Set([1024, 4096, 8192, 16384]);
  const HEADS = new Set(['8/1', '8/8', '32/8', '64/8', '32/4', '16/2']);
  const MLA_HEADS = new Set([16, 32, 64, 128]);
  const KV = {bfloat16: 'bf16', fp8: 'fp8'};
  console.log('gpu,engine,version,kernel,attention,kv,batch,isl,heads,kv_heads,qk_dim,v_dim,latency_s');
  for (const [gpu, dir, engine, version, kernel, mla] of CONTEXT_TABLES) {
    const out = [];
    const rows = await table(`${dir}/attention/${engine}/${version}/context_attention_perf.parquet`);
    for (const r of rows) {
      const b = Number(r.batch_size), s = Number(r.isl);
      const h = Number(r.num_heads), k = Number(r.num_key_value_heads);
      const kv = KV[r.kv_cache_dtype];
      // the attention dtype the engine runs over that KV cache
      const attn = engine === 'trtllm' && kv === 'fp8' ? 'fp8' : 'bfloat16';
      if (r.kernel_source !== kernel || Number(r.head_dim) !== 128 || !kv || r.attn_dtype !== attn ||
          Number(r.step) !== 0 || !BATCH.has(b) || !ISL.has(s) || !HEADS.has(`${h}/${k}`))
        continue;
      out.push([gpu, engine, version, kernel, 'gqa', kv, b, s, h, k, 128, 128,
                (Number(r.latency) / 1000).toExponential(6)].join(','));
    }
    if (mla) {
      const mrows = await table(`${dir}/mla/${engine}/${mla}/context_mla_perf.parquet`);
      for (const r of mrows) {
        const b = Number(r.batch_size), s = Number(r.isl), h = Number(r.num_heads);
        const kv = KV[r.kv_cache_dtype];
        if (r.mla_dtype !== 'bfloat16' || !kv || Number(r.step) !== 0 || !BATCH.has(b) ||
            !ISL.has(s) || !MLA_HEADS.has(h))
          continue;
        out.push([gpu, engine, mla, r.kernel_source, 'mla', kv, b, s, h, 1, 192, 128,
                  (Number(r.latency) / 1000).toExponential(6)].join(','));
      }
    }
    out.sort();
    for (const l of out) console.log(l);
  }
}

if (part === 'moe') await moe();
else if (part === 'decode_attention') await decodeAttention();
else if (part === 'context_attention') await contextAttention();
else throw new Error(`usage: aic_serving_tables.mjs SCRATCH AIC_CLONE moe|decode_attention|context_attention, not ${part}`);
