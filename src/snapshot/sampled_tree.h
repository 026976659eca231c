// A thread's call tree built from samples: each sample is a stack (root first) of managed FunctionIDs and native
// IPs; each node counts the samples whose stack ended there, and of those the ones taken on a CPU. Written only by
// the sampler thread, outside any runtime suspension (it allocates).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace umbra {

struct SampleFrame {
  uintptr_t id = 0;     // FunctionID for managed frames, instruction pointer for native ones
  bool native = false;
  bool operator==(const SampleFrame& o) const { return id == o.id && native == o.native; }
};

// The root of stacks that stopped short of their thread's start (snapshot/stack_end.h), named "[stack incomplete]"
// in reports: a native frame at address 1, where no code is.
inline constexpr SampleFrame kStackIncompleteFrame{1, true};

class SampledTree {
 public:
  struct Node {
    SampleFrame frame;
    uint32_t parent = 0;
    uint64_t self_samples = 0;
    uint64_t self_cpu_samples = 0;  // of self_samples, those taken while the thread was on a CPU
    std::vector<uint32_t> children;
  };

  SampledTree() { nodes_.push_back(Node{}); }  // node 0: the root

  // Adds one sample; `root_first` runs from the outermost frame to the one executing. Returns the node it ended at.
  uint32_t add(const SampleFrame* root_first, size_t count, bool on_cpu);
  // Adds one more sample ending at a node an earlier add returned (a stack seen again, unchanged).
  void add_again(uint32_t leaf, bool on_cpu) {
    ++nodes_[leaf].self_samples;
    ++samples_;
    if (on_cpu) {
      ++nodes_[leaf].self_cpu_samples;
      ++cpu_samples_;
    }
  }

  const Node& node(uint32_t index) const { return nodes_[index]; }
  const Node& root() const { return nodes_[0]; }
  size_t size() const { return nodes_.size(); }
  uint64_t samples() const { return samples_; }
  uint64_t cpu_samples() const { return cpu_samples_; }

 private:
  struct Key {
    uint32_t parent;
    SampleFrame frame;
    bool operator==(const Key& o) const { return parent == o.parent && frame == o.frame; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.frame.id * 31 + k.parent * 2 + (k.frame.native ? 1 : 0));
    }
  };
  std::vector<Node> nodes_;
  std::unordered_map<Key, uint32_t, KeyHash> index_;
  // The last sample's path, root first (its nodes; their frames are the stack's): a thread's next stack mostly
  // shares its outer frames, which are then found by comparing frames rather than by a lookup each (deep server
  // stacks made the lookups most of the sampler's tree work).
  std::vector<uint32_t> last_path_;
  uint64_t samples_ = 0;
  uint64_t cpu_samples_ = 0;
};

}  // namespace umbra
