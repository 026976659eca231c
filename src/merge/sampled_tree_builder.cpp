#include "merge/sampled_tree_builder.h"

#include "merge/tree_builder.h"

namespace umbra {

ReportNode convert_sampled_node(const SampledTree& tree, uint32_t index, FrameNamer& names, PeriodCounts::Lens* lens) {
  const SampledTree::Node& node = tree.node(index);
  ReportNode out;
  out.frame = names.of(node.frame);
  SampledCounts counts{node.self_samples, node.self_cpu_samples};
  if (lens) counts = lens->sampled(&tree, index, counts);
  out.self_samples = counts.self_samples;
  out.self_cpu_samples = counts.self_cpu_samples;
  SiblingMerger children(out.children);
  for (uint32_t child : node.children)
    if (!lens || lens->includes(&tree, child)) children.add(convert_sampled_node(tree, child, names, lens));
  finish_node(out);
  return out;
}

std::vector<ReportNode> build_sampled_roots(const SampledTree& tree,
                                            const std::function<FunctionName(clr::FunctionID)>& managed,
                                            const NativeLookup& native, PeriodCounts::Lens* lens) {
  FrameNamer names(managed, native);
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  for (uint32_t child : tree.root().children)
    if (!lens || lens->includes(&tree, child)) merger.add(convert_sampled_node(tree, child, names, lens));
  return roots;
}

}  // namespace umbra
