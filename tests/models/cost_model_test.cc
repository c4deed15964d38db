// The physical cost model's arithmetic, checked by hand for a dense and a
// mixture-of-experts model on a test GPU with round numbers.
#include "models/cost_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "models/catalog.h"
#include "models/profile.h"

namespace kvroute::models {
namespace {

// Peak 1e15 FLOP/s, 1e12 B/s of HBM, 1e11 B/s of link; every efficiency 0.5;
// 10 µs per all-reduce and per layer, 1 ms per step, 10 µs per sequence.
Gpu TestGpu() {
  Gpu g;
  g.name = "test";
  g.peak_flops_bf16 = g.peak_flops_fp16 = g.peak_flops_fp8 = 1e15;
  g.hbm_bytes_per_s = 1e12;
  g.link_bytes_per_s = 1e11;
  g.memory_bytes = 80e9;
  g.efficiency = GpuEfficiency{.gemm_compute_16bit = 0.5,
                               .gemm_compute_fp8 = 0.5,
                               .weight_bandwidth = 0.5,
                               .kv_bandwidth = 0.5,
                               .attention_compute = 0.5,
                               .link_bandwidth = 0.5,
                               .allreduce_latency_s = 1e-5,
                               .layer_overhead_s = 1e-5,
                               .eager_layer_overhead_s = 1e-4,
                               .step_overhead_s = 1e-3,
                               .sequence_overhead_s = 1e-5,
                               .frontend_latency_s = 0.02};
  return g;
}

Profile OnTestGpu(const char* model, int tp, bool async) {
  Profile p;
  p.model = FindArchitecture(model);
  p.gpu = TestGpu();
  p.tensor_parallel = tp;
  p.engine.async_scheduling = async;
  return p;
}

TEST(ArchitectureTest, LlamaEightBParametersByHand) {
  const ModelArchitecture m = FindArchitecture("llama-3.1-8b");
  // Attention: 4096·4096 (Q) + 2·4096·1024 (K, V) + 4096·4096 (O) = 41,943,040;
  // MLP: 3·4096·14336 = 176,160,768; 32 layers of both: 6,979,321,856.
  EXPECT_EQ(m.ActiveLinearParams(), 6979321856.0);
  // Embeddings and LM head: 2·128256·4096.
  EXPECT_EQ(m.TotalParams(), 6979321856.0 + 2 * 525336576.0);
}

TEST(ArchitectureTest, MixtralParametersByHand) {
  const ModelArchitecture m = FindArchitecture("mixtral-8x7b");
  // One expert: 3·4096·14336 = 176,160,768; two active of eight per layer.
  EXPECT_EQ(m.ExpertParams(), 176160768.0);
  EXPECT_EQ(m.ActiveLinearParams(), 32 * (41943040.0 + 2 * 176160768.0));
  EXPECT_EQ(m.TotalParams(), 32 * (41943040.0 + 8 * 176160768.0) + 2 * 32000 * 4096.0);
  // Uniform routing of 4 tokens to 2 of 8 experts: 8·(1 − (6/8)^4).
  EXPECT_DOUBLE_EQ(m.ExpectedExpertsTouched(1), 2);
  EXPECT_DOUBLE_EQ(m.ExpectedExpertsTouched(4), 5.46875);
}

TEST(CostModelTest, DenseIterationByHand) {
  PhysicalCostModel model(OnTestGpu("llama-3.1-8b", 1, /*async=*/false));
  BatchShape batch;
  batch.AddPrefillChunk(0, 1000);
  for (int i = 0; i < 10; ++i) batch.AddDecode(1000);
  IterationBreakdown b = model.Breakdown(batch);
  // Linear: 2·6,979,321,856·1010 + 2·525,336,576·11 FLOPs = 1.41098e13 at
  // 5e14/s is 28.2 ms; reading 15,009,316,864 bytes of weights at 5e11/s is
  // 30.0 ms, the larger.
  EXPECT_NEAR(b.linear, 15009316864.0 / 5e11, 1e-12);
  // Prefill attention: 4·32·4096·(1000·1001/2) FLOPs at 5e14/s.
  EXPECT_NEAR(b.prefill_attention, 4.0 * 32 * 4096 * 500500 / 5e14, 1e-12);
  // Decode attention: 10 sequences × 1000 tokens × 128 KiB at 5e11 B/s.
  EXPECT_NEAR(b.decode_attention, 10000.0 * 131072 / 5e11, 1e-12);
  EXPECT_EQ(b.allreduce, 0);
  // 1010 tokens exceed the largest CUDA graph (min(2·1024, 512, 8192) = 512
  // with vLLM's defaults for an 80 GB GPU): every layer launches eagerly.
  EXPECT_NEAR(b.launch, 32 * 1e-4, 1e-15);
  EXPECT_NEAR(b.cpu, 1e-3 + 11 * 1e-5, 1e-15);
  EXPECT_NEAR(b.total, 0.030018633728 + 0.000524812 + 0.00262144 + 0.0032 + 0.00111, 1e-9);
  EXPECT_EQ(model.IterationTime(batch), sim::FromSeconds(b.total));
  EXPECT_EQ(model.FrontendLatency(), sim::FromSeconds(0.02));
}

TEST(CostModelTest, IterationsWithinTheLargestCudaGraphLaunchFromTheGraph) {
  PhysicalCostModel model(OnTestGpu("llama-3.1-8b", 1, /*async=*/false));
  BatchShape graphed, eager;
  graphed.AddPrefillChunk(0, 512);
  eager.AddPrefillChunk(0, 513);
  EXPECT_NEAR(model.Breakdown(graphed).launch, 32 * 1e-5, 1e-15);
  EXPECT_NEAR(model.Breakdown(eager).launch, 32 * 1e-4, 1e-15);
}

TEST(CostModelTest, MixtureOfExpertsReadsOnlyTheExpertsItTouches) {
  PhysicalCostModel model(OnTestGpu("mixtral-8x7b", 1, /*async=*/false));
  BatchShape one, four;
  one.AddDecode(1000);
  for (int i = 0; i < 4; ++i) four.AddDecode(1000);
  // One token touches 2 experts: 32·(41,943,040 + 2·176,160,768) + 131,072,000
  // (LM head) = 12,747,538,432 parameters, 2 bytes each, at 5e11 B/s.
  EXPECT_NEAR(model.Breakdown(one).linear, 25495076864.0 / 5e11, 1e-12);
  // Four tokens touch 5.46875 experts per layer on average.
  EXPECT_NEAR(model.Breakdown(four).linear,
              2 * (32 * (41943040.0 + 5.46875 * 176160768.0) + 131072000.0) / 5e11, 1e-12);
  EXPECT_NEAR(model.Breakdown(one).total, 0.052582297728, 1e-9);
}

TEST(CostModelTest, TensorParallelShardsWorkAndAddsTwoAllReducesPerLayer) {
  PhysicalCostModel model(OnTestGpu("mixtral-8x7b", 2, /*async=*/false));
  BatchShape batch;
  for (int i = 0; i < 64; ++i) batch.AddDecode(2000);
  IterationBreakdown b = model.Breakdown(batch);
  // 64 tokens × 4096 × 2 bytes; a ring moves 2·(2−1)/2 of it per GPU, over a
  // 1e11·0.5 B/s link, plus 10 µs; two per layer, 32 layers.
  EXPECT_NEAR(b.allreduce, 64.0 * (64 * 4096 * 2 / 5e10 + 1e-5), 1e-12);
  // Each GPU holds 4 of the 8 KV heads.
  EXPECT_NEAR(b.decode_attention, 64.0 * 2000 * 65536 / 5e11, 1e-12);
}

TEST(CostModelTest, AsyncSchedulingOverlapsTheCpuWithTheGpu) {
  BatchShape batch;
  batch.AddDecode(100);
  PhysicalCostModel sync(OnTestGpu("llama-3.1-8b", 1, false));
  PhysicalCostModel async(OnTestGpu("llama-3.1-8b", 1, true));
  IterationBreakdown s = sync.Breakdown(batch), a = async.Breakdown(batch);
  const double gpu = s.linear + s.prefill_attention + s.decode_attention + s.launch;
  EXPECT_NEAR(s.total, gpu + s.cpu, 1e-12);
  EXPECT_NEAR(a.total, std::max(gpu, a.cpu), 1e-12);
}

TEST(CostModelTest, IterationTimeGrowsWithEachPartOfTheBatch) {
  PhysicalCostModel model(FindProfile("h100-llama3.1-8b-bf16"));
  BatchShape small;
  small.AddDecode(1000);
  BatchShape more_decodes = small;
  for (int i = 0; i < 63; ++i) more_decodes.AddDecode(1000);
  BatchShape longer_context;
  longer_context.AddDecode(100000);
  BatchShape prefill;
  prefill.AddPrefillChunk(0, 4096);
  EXPECT_GT(model.IterationTime(more_decodes), model.IterationTime(small));
  EXPECT_GT(model.IterationTime(longer_context), model.IterationTime(small));
  EXPECT_GT(model.IterationTime(prefill), model.IterationTime(more_decodes));
}

// The header's formula written out term by term, every factor recomputed
// from the profile: what the model's cached factors must reproduce to the bit.
double TotalByDefinition(const Profile& p, const BatchShape& batch) {
  const ModelArchitecture& m = p.model;
  const GpuEfficiency& e = p.gpu.efficiency;
  const double tp = p.tensor_parallel;
  const auto tokens = static_cast<double>(batch.prefill_tokens + batch.decode_sequences);
  const double flops = (2.0 * m.ActiveLinearParams() * tokens +
                        2.0 * m.LmHeadParams() * static_cast<double>(batch.sequences)) /
                       tp;
  const double bytes = m.WeightParamsRead(tokens) * DtypeBytes(p.weight_dtype) / tp;
  const double linear =
      std::max(flops / (p.gpu.PeakFlops(p.weight_dtype) * p.gpu.GemmEfficiency(p.weight_dtype)),
               bytes / (p.gpu.hbm_bytes_per_s * e.weight_bandwidth));
  const double q_width = static_cast<double>(m.heads) * m.head_dim;
  const double prefill = 4.0 * m.layers * q_width * batch.prefill_attention_context / tp /
                         (p.gpu.PeakFlops(Dtype::kBf16) * e.attention_compute);
  const double decode = p.KvBytesPerTokenPerGpu() * batch.decode_context_tokens /
                        (p.gpu.hbm_bytes_per_s * e.kv_bandwidth);
  double allreduce = 0;
  if (p.tensor_parallel > 1) {
    const double per_gpu = 2.0 * (tp - 1) / tp * (tokens * m.hidden * 2);
    allreduce = 2.0 * m.layers *
                (per_gpu / (p.gpu.link_bytes_per_s * e.link_bandwidth) + e.allreduce_latency_s);
  }
  const bool eager = tokens > p.ResolvedEngine().cudagraph_max_tokens;
  const double launch = m.layers * (eager ? e.eager_layer_overhead_s : e.layer_overhead_s);
  const double cpu =
      e.step_overhead_s + static_cast<double>(batch.sequences) * e.sequence_overhead_s;
  const double gpu = linear + prefill + decode + allreduce + launch;
  return p.ResolvedEngine().async_scheduling ? std::max(gpu, cpu) : gpu + cpu;
}

TEST(CostModelTest, FactorsComputedOnceGiveTheDefinitionToTheBit) {
  const Profile profiles[] = {
      OnTestGpu("llama-3.1-8b", 1, false), OnTestGpu("mixtral-8x7b", 2, false),
      OnTestGpu("mixtral-8x7b", 1, true), FindProfile("h100-llama3.1-8b-bf16"),
      FindProfile("h100x2-mixtral-8x7b-bf16")};
  for (const Profile& p : profiles) {
    PhysicalCostModel model(p);
    for (int decodes : {0, 1, 7, 64, 300}) {
      for (int64_t prefill : {0, 1, 300, 513, 8192}) {
        BatchShape batch;
        if (prefill > 0) batch.AddPrefillChunk(/*context_before=*/prefill / 3, prefill);
        for (int i = 0; i < decodes; ++i) batch.AddDecode(100 + 37 * i);
        if (batch.Empty()) continue;
        SCOPED_TRACE(p.model.name + " tp " + std::to_string(p.tensor_parallel) + ", " +
                     std::to_string(decodes) + " decodes, " + std::to_string(prefill) +
                     " prefill tokens");
        EXPECT_EQ(model.Breakdown(batch).total, TotalByDefinition(p, batch));
      }
    }
  }
}

TEST(CostModelTest, PrefillAttentionContextCountsCachedPrefix) {
  BatchShape b;
  b.AddPrefillChunk(/*context_before=*/100, /*tokens=*/3);
  // Tokens see 101, 102 and 103 positions.
  EXPECT_DOUBLE_EQ(b.prefill_attention_context, 306);
  EXPECT_EQ(b.prefill_tokens, 3);
}

TEST(CostModelTest, FixedModelIgnoresTheBatch) {
  FixedCostModel model(sim::FromSeconds(0.05));
  BatchShape a, b;
  a.AddDecode(1);
  b.AddPrefillChunk(0, 8000);
  EXPECT_EQ(model.IterationTime(a), model.IterationTime(b));
  EXPECT_EQ(model.FrontendLatency(), 0);
}

}  // namespace
}  // namespace kvroute::models
