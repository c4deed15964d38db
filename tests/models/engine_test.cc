// Engine defaults taken from vLLM, checked by value, and the KV pool they and
// the profile imply.
#include "models/engine.h"

#include <gtest/gtest.h>

#include <cmath>

#include "models/catalog.h"
#include "models/profile.h"

namespace kvroute::models {
namespace {

// vllm/engine/arg_utils.py EngineArgs.get_batch_defaults (v0.12.0, v0.15.1):
// >= 70 GiB and not an A100: 1024 sequences; 8192 tokens for the API server,
// 16384 for the LLM class. Otherwise 256; 2048 / 8192. Other entry points
// fall back to vllm/config/scheduler.py's 128 / 2048.
TEST(EngineTest, VllmBatchDefaultsPerGpuAndEntryPoint) {
  struct Case {
    const char* gpu;
    EntryPoint entry;
    int seqs, tokens;
  };
  for (const Case& c : {Case{"h100-sxm", EntryPoint::kApiServer, 1024, 8192},
                        Case{"h100-sxm", EntryPoint::kLlmClass, 1024, 16384},
                        Case{"h200-sxm", EntryPoint::kApiServer, 1024, 8192},
                        Case{"a100-sxm-80gb", EntryPoint::kApiServer, 256, 2048},
                        Case{"a100-sxm-80gb", EntryPoint::kLlmClass, 256, 8192},
                        Case{"l40s", EntryPoint::kApiServer, 256, 2048},
                        Case{"h100-sxm", EntryPoint::kOther, 128, 2048}}) {
    BatchDefaults d = VllmBatchDefaults(FindGpu(c.gpu), c.entry);
    EXPECT_EQ(d.max_num_seqs, c.seqs) << c.gpu << " " << EntryPointName(c.entry);
    EXPECT_EQ(d.max_num_batched_tokens, c.tokens) << c.gpu << " " << EntryPointName(c.entry);
  }
}

TEST(EngineTest, OtherDefaultsAreVllms) {
  EngineSettings e;
  EXPECT_EQ(e.entry_point, EntryPoint::kApiServer);  // vllm serve
  EXPECT_EQ(e.gpu_memory_utilization, 0.9);          // vllm/config/cache.py
  EXPECT_EQ(e.block_size_tokens, 16);                // vllm/platforms/cuda.py
  EXPECT_TRUE(e.cache_generated_tokens);             // vLLM v1 caches full output blocks
  EXPECT_TRUE(e.async_scheduling);                   // default from vLLM v0.14
}

TEST(EngineTest, GivenValuesWinAndADefaultedSequenceCapStaysWithinTheTokenBudget) {
  EngineSettings e;
  e.max_num_batched_tokens = 512;
  EngineSettings r = ResolveEngine(e, FindGpu("h100-sxm"));
  EXPECT_EQ(r.max_num_batched_tokens, 512);
  EXPECT_EQ(r.max_num_seqs, 512);  // min(1024, 512), as vLLM caps it
  e.max_num_seqs = 64;
  EXPECT_EQ(ResolveEngine(e, FindGpu("h100-sxm")).max_num_seqs, 64);
}

// vllm/config/vllm.py _set_cudagraph_sizes: the largest captured size is
// min(2·max_num_seqs, 512), then at most max_num_batched_tokens.
TEST(EngineTest, LargestCudaGraphFollowsVllm) {
  EngineSettings e;
  EXPECT_EQ(ResolveEngine(e, FindGpu("h100-sxm")).cudagraph_max_tokens, 512);
  e.max_num_seqs = 128;
  EXPECT_EQ(ResolveEngine(e, FindGpu("h100-sxm")).cudagraph_max_tokens, 256);
  e.max_num_batched_tokens = 200;
  EXPECT_EQ(ResolveEngine(e, FindGpu("h100-sxm")).cudagraph_max_tokens, 200);
}

TEST(ProfileTest, KvPoolFollowsVllmsMemoryProfile) {
  const Profile p = FindProfile("h100-llama3.1-8b-bf16");
  // Activations: 8192 tokens × 2·(2·4096 + 2·14336) bytes, and 1024 rows of
  // fp32 logits and probabilities over 128,256 tokens.
  const double activations = 8192.0 * 2 * (2 * 4096 + 2 * 14336) + 1024.0 * 128256 * 4 * 2;
  EXPECT_DOUBLE_EQ(p.ActivationBytesPerGpu(), activations);
  // 0.9 of 85.06e9 bytes, less 8.03e9 bf16 weights, activations, non-torch.
  const double pool = 0.9 * 85.06e9 - 2 * 8029995008.0 - activations - 1.92e9;
  EXPECT_DOUBLE_EQ(p.KvPoolBytesPerGpu(), pool);
  // Blocks of 16 tokens × 128 KiB, less vLLM's null block.
  EXPECT_EQ(p.KvCapacityBlocks(), static_cast<int64_t>(std::floor(pool / (16 * 131072.0))) - 1);
}

TEST(ProfileTest, TensorParallelSplitsWeightsAndKvHeads) {
  Profile tp1 = FindProfile("h100-qwen2.5-32b-bf16");
  Profile tp2 = FindProfile("h100x2-qwen2.5-32b-bf16");
  EXPECT_EQ(tp2.KvBytesPerTokenPerGpu(), tp1.KvBytesPerTokenPerGpu() / 2);
  EXPECT_EQ(tp2.KvBytesPerToken(), tp1.KvBytesPerToken());
  EXPECT_GT(tp2.KvCapacityBlocks(), 2 * tp1.KvCapacityBlocks());  // weights split across two GPUs
}

// vLLM's kv_cache_dtype "auto" keeps 16-bit KV for fp8 weights.
TEST(ProfileTest, KvDtypeIsSeparateFromTheWeightDtype) {
  Profile kv16 = FindProfile("h100x2-llama3.1-70b-fp8");
  Profile kv8 = FindProfile("h100x2-llama3.1-70b-fp8-kvfp8");
  EXPECT_EQ(kv16.weight_dtype, Dtype::kFp8);
  EXPECT_EQ(kv16.kv_dtype, Dtype::kBf16);
  EXPECT_EQ(kv16.KvBytesPerToken(), 327680);  // 2·80·8·128·2 bytes
  EXPECT_EQ(kv8.KvBytesPerToken(), 163840);
  EXPECT_EQ(kv16.WeightBytes(), kv8.WeightBytes());
  EXPECT_NEAR(kv8.KvCapacityBlocks(), 2 * kv16.KvCapacityBlocks(), 2);
}

TEST(ProfileTest, AnInlineProfileIsModelTimesGpuTimesTp) {
  YAML::Node node = YAML::Load(
      "{model: qwen3-32b, gpu: h200-sxm, tensor_parallel: 4, weight_dtype: fp8, "
      "engine: {max_num_seqs: 64, cache_generated_tokens: false}}");
  Profile p = ParseProfile(node, "s.yaml", "cluster.profile");
  EXPECT_EQ(p.name, "qwen3-32b-h200-sxm-tp4-fp8");
  EXPECT_EQ(p.model.heads, 64);
  EXPECT_EQ(p.kv_dtype, Dtype::kBf16);
  EXPECT_EQ(p.ResolvedEngine().max_num_seqs, 64);
  EXPECT_EQ(p.ResolvedEngine().max_num_batched_tokens, 8192);
  EXPECT_FALSE(p.ResolvedEngine().cache_generated_tokens);
}

TEST(ProfileTest, ErrorsNameTheKey) {
  auto error = [](const std::string& text) {
    try {
      ParseProfile(YAML::Load(text), "p.yaml");
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(error("{model: llama-9b, gpu: h100-sxm}").find("key 'model': unknown model 'llama-9b'"),
            std::string::npos);
  EXPECT_NE(error("{model: llama-3.1-8b, gpu: h100-sxm, weight_dtype: int4}")
                .find("key 'weight_dtype': unknown dtype 'int4'"),
            std::string::npos);
  EXPECT_NE(error("{model: llama-3.1-8b, gpu: h100-sxm, tensor_parallel: 3}")
                .find("key 'tensor_parallel': must divide"),
            std::string::npos);
  EXPECT_NE(error("{model: llama-3.1-8b, gpu: h100-sxm, engine: {max_num_seq: 4}}")
                .find("key 'engine.max_num_seq': unknown key"),
            std::string::npos);
}

TEST(CatalogTest, TheIssuesModelsAndGpusAreData) {
  for (const char* m : {"qwen3-14b", "qwen3-32b", "llama-3.1-70b", "mixtral-8x7b"}) {
    EXPECT_EQ(FindArchitecture(m).name, m);
  }
  for (const char* g : {"h100-sxm", "h200-sxm", "a100-sxm-80gb", "l40s"}) {
    EXPECT_EQ(FindGpu(g).name, g);
  }
  EXPECT_EQ(FindGpu("a100-sxm-80gb").peak_flops_fp8, 0);
  EXPECT_EQ(FindGpu("l40s").efficiency_source.rfind("borrowed from h100-sxm", 0), 0u);
}

TEST(CatalogTest, UnknownNamesListTheValidOnes) {
  try {
    FindProfile("h100-llama-typo");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("h100-llama3.1-8b-bf16"), std::string::npos);
  }
  try {
    FindGpu("b200");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("h100-sxm"), std::string::npos);
  }
}

}  // namespace
}  // namespace kvroute::models
