#include "snapshot/sampled_tree.h"

#include <algorithm>

namespace umbra {

uint32_t SampledTree::add(const SampleFrame* root_first, size_t count, bool on_cpu) {
  size_t same = 0;
  const size_t comparable = std::min(count, last_path_.size());
  while (same < comparable && nodes_[last_path_[same]].frame == root_first[same]) ++same;
  uint32_t at = same > 0 ? last_path_[same - 1] : 0;
  last_path_.resize(same);
  for (size_t i = same; i < count; ++i) {
    Key key{at, root_first[i]};
    auto [it, inserted] = index_.try_emplace(key, uint32_t(nodes_.size()));  // allocates only when new
    if (inserted) {
      Node node;
      node.frame = root_first[i];
      node.parent = at;
      nodes_.push_back(std::move(node));
      nodes_[at].children.push_back(it->second);
    }
    at = it->second;
    last_path_.push_back(at);
  }
  add_again(at, on_cpu);
  return at;
}

}  // namespace umbra
