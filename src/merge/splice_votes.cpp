#include "merge/splice_votes.h"

namespace umbra {

void vote_splice(SpliceMap& map, const CallNode* node, const SampleFrame* root_first, size_t count) {
  RememberedSplice& remembered = map[node];
  if (count == 0) {
    ++remembered.seen_without;
    return;
  }
  ++remembered.seen_with;
  remembered.frames.assign(root_first, root_first + count);
}

}  // namespace umbra
