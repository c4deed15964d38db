// NVIDIA Dynamo's KV router selection (lib/kv-router/src/scheduling/selector.rs
// @ccd1706; policies.md §2): with temperature 0 the least logit wins, ties
// uniformly at random; otherwise p_w ∝ exp(-(logit_w - min) / ((max - min)·T)),
// uniform when max == min. +infinity marks a worker that may not be chosen.
#ifndef KVROUTE_POLICIES_DYNAMO_SELECTOR_H_
#define KVROUTE_POLICIES_DYNAMO_SELECTOR_H_

#include <cstdint>
#include <span>

#include "sim/core/random_stream.h"

namespace kvroute::policies {

// `scratch` holds the probabilities. REQUIRES: one logit finite, equal sizes.
uint32_t DynamoSelect(std::span<const double> logits, double temperature, sim::RandomStream& rng,
                      std::span<double> scratch);

}  // namespace kvroute::policies

#endif  // KVROUTE_POLICIES_DYNAMO_SELECTOR_H_
