// GPU prices are data with a source (models/gpus/*.yaml, issue 15).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "models/catalog.h"
#include "models/gpu.h"
#include "sim/core/yaml_document.h"

namespace kvroute::models {
namespace {

TEST(GpuPrice, EveryBuiltinGpuHasAPriceAndItsSource) {
  for (const Gpu& g : BuiltinGpus()) {
    EXPECT_GT(g.usd_per_gpu_hour, 0) << g.name;
    EXPECT_NE(g.price_source.find("docs.runpod.io/serverless/pricing"), std::string::npos)
        << g.name;
  }
}

TEST(GpuPrice, ThePriceListsPerSecondRateTimesAnHour) {
  // RunPod Serverless, active worker, per second (docs.runpod.io/serverless/pricing).
  EXPECT_NEAR(FindGpu("h100-sxm").usd_per_gpu_hour, 0.00093 * 3600, 1e-9);
  EXPECT_NEAR(FindGpu("h200-sxm").usd_per_gpu_hour, 0.00124 * 3600, 1e-9);
  EXPECT_NEAR(FindGpu("a100-sxm-80gb").usd_per_gpu_hour, 0.00060 * 3600, 1e-9);
  EXPECT_NEAR(FindGpu("l40s").usd_per_gpu_hour, 0.00037 * 3600, 1e-9);
}

const char* kGpu = R"(name: test-gpu
peak_flops: {bf16: 1.0e15}
hbm_bytes_per_s: 3.0e12
memory_bytes: 80.0e9
interconnect: {kind: nvlink, bytes_per_s: 4.5e11}
efficiency: {borrow: h100-sxm}
)";

Gpu Parse(const std::string& extra) {
  return ParseGpu(YAML::Load(std::string(kGpu) + extra), "test.yaml", BuiltinGpus());
}

TEST(GpuPrice, APriceIsOptional) { EXPECT_EQ(Parse("").usd_per_gpu_hour, 0); }

TEST(GpuPrice, APriceNeedsItsSource) {
  EXPECT_THROW(Parse("price: {usd_per_gpu_hour: 2.5}\n"), sim::YamlError);
  EXPECT_THROW(Parse("price: {usd_per_gpu_hour: 2.5, source: ''}\n"), sim::YamlError);
  EXPECT_NEAR(Parse("price: {usd_per_gpu_hour: 2.5, source: my quote}\n").usd_per_gpu_hour, 2.5,
              1e-12);
}

TEST(GpuPrice, AMisspelledPriceKeyIsAnError) {
  try {
    Parse("price: {usd_per_gpu_hr: 2.5, source: my quote}\n");
    FAIL() << "no error";
  } catch (const sim::YamlError& e) {
    EXPECT_NE(std::string(e.what()).find("usd_per_gpu_hour"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kvroute::models
