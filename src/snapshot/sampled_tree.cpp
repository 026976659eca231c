#include "snapshot/sampled_tree.h"

namespace umbra {

uint32_t SampledTree::add(const SampleFrame* root_first, size_t count, bool on_cpu) {
  uint32_t at = 0;
  for (size_t i = 0; i < count; ++i) {
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
  }
  add_again(at, on_cpu);
  return at;
}

}  // namespace umbra
