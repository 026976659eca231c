#include "merge/sampled_tree_builder.h"

#include "merge/tree_builder.h"

namespace umbra {
namespace {

ReportNode convert(const SampledTree& tree, uint32_t index, const std::function<FunctionName(clr::FunctionID)>& managed,
                   const NativeLookup& native) {
  const SampledTree::Node& node = tree.node(index);
  ReportNode out = named_frame(node.frame, managed, native);
  out.self_samples = node.self_samples;
  SiblingMerger children(out.children);
  for (uint32_t child : node.children) children.add(convert(tree, child, managed, native));
  return out;
}

}  // namespace

std::vector<ReportNode> build_sampled_roots(const SampledTree& tree,
                                            const std::function<FunctionName(clr::FunctionID)>& managed,
                                            const NativeLookup& native) {
  std::vector<ReportNode> roots;
  SiblingMerger merger(roots);
  for (uint32_t child : tree.root().children) merger.add(convert(tree, child, managed, native));
  for (auto& r : roots) finish_totals(r);
  return roots;
}

}  // namespace umbra
