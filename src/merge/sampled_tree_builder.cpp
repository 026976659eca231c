#include "merge/sampled_tree_builder.h"

#include "merge/tree_builder.h"

namespace umbra {

ReportNode convert_sampled_node(const SampledTree& tree, uint32_t index, FrameNamer& names) {
  const SampledTree::Node& node = tree.node(index);
  ReportNode out;
  out.frame = names.of(node.frame);
  out.self_samples = node.self_samples;
  out.self_cpu_samples = node.self_cpu_samples;
  SiblingMerger children(out.children);
  for (uint32_t child : node.children) children.add(convert_sampled_node(tree, child, names));
  return out;
}

std::vector<ReportNode> build_sampled_roots(const SampledTree& tree,
                                            const std::function<FunctionName(clr::FunctionID)>& managed,
                                            const NativeLookup& native) {
  FrameNamer names(managed, native);
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  for (uint32_t child : tree.root().children) merger.add(convert_sampled_node(tree, child, names));
  for (auto& r : roots) finish_totals(r);
  return roots;
}

}  // namespace umbra
