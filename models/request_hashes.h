// A request's chained block hashes, computed the first time they are read.
//
// On a workload whose prompts run to tens of thousands of tokens, most of an
// overloaded run's requests wait in a queue until the run ends, and hashing
// every prompt on arrival cost those never-admitted requests over half the
// run's CPU (docs/performance/EARLIER_PASSES.md, "Prompts hashed when first
// read"). A request whose policy routes it without reading its blocks
// (flat_lb, sticky, chwbl, cacheroute) is hashed when its engine first looks
// it up, or never; one whose policy reads only as far as its prompt matches
// what the policy has seen (preble, dualmap: PromptPrefix) is hashed that
// far, the rest when its engine looks it up (docs/PERFORMANCE.md, "Routers
// read a prompt only as far as it matches").
//
// The hashes are those the source's SequenceHasher would have given on
// arrival: the segments are kept, and the hasher's memory is exact.
#ifndef KVROUTE_MODELS_REQUEST_HASHES_H_
#define KVROUTE_MODELS_REQUEST_HASHES_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "models/prompt_blocks.h"

namespace kvroute::models {

class RequestHashes {
 public:
  // Chained hashes of the prompt's full blocks; the trailing partial block is
  // not cacheable and has no hash.
  const std::vector<uint64_t>& prompt() const {
    Resolve();
    return prompt_;
  }
  // The same chain continued through the output: the hash of every full block
  // that generated tokens complete (the block straddling the prompt's tail
  // and the first output tokens included). An engine that caches generated
  // tokens registers them as their KV is computed; a later turn whose prompt
  // repeats this prompt and output then hits them. Empty when unknown.
  const std::vector<uint64_t>& output() const {
    Resolve();
    return output_;
  }

  // The prompt's first `blocks` hashes, or all of them when it has fewer.
  // While the hashing is deferred only these are hashed, and a later call
  // goes on from where the last stopped: for a router that reads a prompt
  // only as far as it matches what it has seen (preble, dualmap), so that a
  // prompt's own new tokens are not hashed unless its engine reads them.
  std::span<const uint64_t> PromptPrefix(uint32_t blocks) const {
    if (pending_) {
      if (!prefix_) {
        hasher_->Lend(segments_, output_segment_, &prompt_, &output_);  // room for the whole
        cursor_ = {};
        prefix_ = true;
      }
      if (prompt_.size() < blocks) hasher_->HashPrefix(segments_, blocks, &cursor_, &prompt_);
    }
    return {prompt_.data(), std::min<size_t>(blocks, prompt_.size())};
  }
  // The prompt's first `blocks` hashes (all when it has fewer) without the
  // request keeping any: read from what is hashed already, else hashed into
  // `scratch` from `at`. For a look at a queued request whose hashes were
  // forgotten, which is to hold none until admitted (Forget). A look starts
  // with `scratch` empty and `at` new; reading further with the same two, it
  // goes on from where it stopped rather than hashing from the start again.
  std::span<const uint64_t> PeekPrefix(uint32_t blocks, std::vector<uint64_t>* scratch,
                                       SequenceHasher::PrefixCursor* at) const {
    const uint32_t want = std::min(blocks, prompt_blocks());
    if (!pending_ || (prefix_ && prompt_.size() >= want)) return {prompt_.data(), want};
    hasher_->HashPrefix(segments_, want, at, scratch);
    return {scratch->data(), want};
  }
  // The number of prompt() hashes, without hashing.
  uint32_t prompt_blocks() const {
    return pending_ ? TotalTokens(segments_) / hasher_->block_size()
                    : static_cast<uint32_t>(prompt_.size());
  }
  // What the hashes are computed from, while they can be computed again
  // (HashLater and nothing written): the segments and the block size. An
  // empty span and 0 otherwise.
  std::span<const PromptSegment> segments() const {
    return recomputable_ ? std::span<const PromptSegment>(segments_)
                         : std::span<const PromptSegment>{};
  }
  uint32_t block_size() const { return recomputable_ ? hasher_->block_size() : 0; }

  // The hashes to write directly (a deferred hashing is done first). Hashes
  // written here are never forgotten.
  std::vector<uint64_t>* mutable_prompt() {
    Resolve();
    recomputable_ = false;
    return &prompt_;
  }
  std::vector<uint64_t>* mutable_output() {
    Resolve();
    recomputable_ = false;
    return &output_;
  }

  // Forgets the hashes and hashes `segments` then `output` with `hasher` when
  // they are first read. The segments are copied; the hasher is shared, so it
  // outlives the source that made it (a staged workload replaces its source
  // while earlier requests still wait).
  void HashLater(std::shared_ptr<SequenceHasher> hasher, std::span<const PromptSegment> segments,
                 const PromptSegment& output) {
    Clear();
    segments_.assign(segments.begin(), segments.end());
    output_segment_ = output;
    hasher_ = std::move(hasher);
    pending_ = true;
    recomputable_ = true;
  }

  // Gives the computed chains' storage back to the hasher and computes them
  // again when they are next read, as HashLater does; returns whether it did
  // (only chains HashLater fixed and nothing wrote can be forgotten). For a
  // request that will wait behind many others before anything reads its
  // blocks again: an overloaded run's queues then hold segments, not
  // thousands of hashes per request, and the storage serves the requests
  // being routed (docs/PERFORMANCE.md, "Hashes of deep-queued requests").
  // Values never change: hashing is a pure function of the segments.
  bool Forget() {
    if ((pending_ && !prefix_) || !recomputable_) return false;
    hasher_->GiveBack(&prompt_, &output_);
    pending_ = true;
    prefix_ = false;
    return true;
  }

  // Empties both chains. Hashed by a SequenceHasher, their storage goes back
  // to it for the next request it hashes; written directly, it stays here.
  void Clear() {
    pending_ = false;
    prefix_ = false;
    recomputable_ = false;
    if (hasher_ != nullptr) {
      hasher_->GiveBack(&prompt_, &output_);
      hasher_.reset();
    }
    prompt_.clear();
    output_.clear();
  }

  bool pending() const { return pending_; }

 private:
  // Logically const: what is computed is what HashLater fixed.
  void Resolve() const {
    if (!pending_) return;
    hasher_->Lend(segments_, output_segment_, &prompt_, &output_);
    if (prefix_) {
      hasher_->HashRest(segments_, output_segment_, &cursor_, &prompt_, &output_);
    } else {
      hasher_->Hash(segments_, output_segment_, &prompt_, &output_);
    }
    pending_ = false;
    prefix_ = false;
  }

  mutable std::vector<uint64_t> prompt_;
  mutable std::vector<uint64_t> output_;
  mutable bool pending_ = false;  // hashing is deferred to the first read
  // While pending: prompt_ holds the prefix that PromptPrefix hashed, up to
  // cursor_.
  mutable bool prefix_ = false;
  mutable SequenceHasher::PrefixCursor cursor_;
  bool recomputable_ = false;  // the chains are the segments' (HashLater)
  // The hasher the chains are (to be) computed with, which takes their
  // storage back on Clear.
  std::shared_ptr<SequenceHasher> hasher_;
  std::vector<PromptSegment> segments_;
  PromptSegment output_segment_;
};

}  // namespace kvroute::models

#endif  // KVROUTE_MODELS_REQUEST_HASHES_H_
