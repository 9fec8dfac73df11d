#include "backend/buffer_plan.h"

#include <cstring>

#include <algorithm>
#include <set>

#include "support/diagnostics.h"

namespace atc {
BufferPlan::BufferPlan(Graph& g, std::vector<LoweredNode>& lowered, bool reuse, WeightStore& weights,
                       int64_t redzone)
    : weights_(weights) {
  liveness(g, lowered);
  // An oom build's red zones around every region would lie inside a Concat's other slices.
  sliceConcats_ = reuse && redzone == 0;
  groupBuffers(g, lowered, reuse);
  for (auto& pb : groups_) pb.size += 2 * redzone;
  arenaSize_ = planArena(groups_, reuse);
  for (auto& pb : groups_) pb.offset += redzone, pb.size -= 2 * redzone;
  for (auto& pb : groups_) regions_.push_back({false, pb.offset, pb.size});
  for (auto& kv : groupOf_)
    if (isRunSized(kv.first)) {
      PlanRegion& r = regions_[kv.second];
      r.run = true;
      r.rank = kv.first->type.rank();
      r.esize = (int64_t)dtypeSize(kv.first->type.dtype);
    }
  for (const Slice& sl : slices_) regions_[sl.group] = {false, groups_[sl.concatGroup].offset + sl.offset, sl.size};
}

void BufferPlan::liveness(const Graph& g, const std::vector<LoweredNode>& lowered) {
  const int N = (int)lowered.size();
  for (auto* v : g.inputs) defAt_[v] = 0, lastUse_[v] = 0;
  for (int i = 0; i < N; ++i) {
    if (lowered[i].skip) continue;
    for (auto* in : lowered[i].node->inputs)
      if (in && !in->isConstant()) {
        lastUse_[in] = std::max(lastUse_.count(in) ? lastUse_[in] : i, i);
        uses_[in]++;
      }
    for (auto* o : lowered[i].node->outputs) {
      defAt_[o] = i;
      if (!lastUse_.count(o)) lastUse_[o] = i;
    }
  }
  for (auto* v : g.outputs)
    if (!v->isConstant() || defAt_.count(v)) lastUse_[v] = N;
  extendAcrossLoops(lowered);
}

// The steps from a LoopBegin to its LoopEnd run once per iteration: a value made before the
// loop and read in it, and the loop's body inputs (which LoopEnd writes for the next
// iteration), stay live to the LoopEnd.
void BufferPlan::extendAcrossLoops(const std::vector<LoweredNode>& lowered) {
  const int N = (int)lowered.size();
  for (int b = 0; b < N; ++b) {
    if (!lowered[b].control || lowered[b].node->type != "LoopBegin") continue;
    const Value* iter = lowered[b].node->outputs[0];
    int e = b + 1;
    while (e < N &&
           !(lowered[e].control && lowered[e].node->type == "LoopEnd" && lowered[e].node->input(0) == iter))
      ++e;
    if (e == N) internalError("LoopBegin " + lowered[b].node->name + " has no LoopEnd after it");
    for (auto* o : lowered[b].node->outputs) lastUse_[o] = std::max(lastUse_[o], e);
    std::set<const Value*> body;  // made by the body's steps, each iteration anew
    for (int i = b + 1; i < e; ++i)
      for (auto* o : lowered[i].node->outputs) body.insert(o);
    for (int i = b + 1; i <= e; ++i) {
      if (lowered[i].skip) continue;
      for (auto* in : lowered[i].node->inputs)
        if (in && !in->isConstant() && !body.count(in)) lastUse_[in] = std::max(lastUse_[in], e);
    }
  }
}

void BufferPlan::groupBuffers(const Graph& g, std::vector<LoweredNode>& lowered, bool reuse) {
  std::set<const Value*> graphIn(g.inputs.begin(), g.inputs.end()), graphOut(g.outputs.begin(), g.outputs.end());
  auto newGroup = [&](const Value* v) {
    PlanBuffer pb;
    pb.size = isRunSized(v)       ? kRunSizedDimsBytes
              : v->shapeFromData ? dataShapeBufferBytes(v->type)
                                 : std::max<int64_t>(v->type.byteSize(), 0);
    pb.first = defAt_[v];
    pb.last = lastUse_[v];
    groups_.push_back(pb);
    groupOf_[v] = (int)groups_.size() - 1;
    ownGroup_.insert((int)groups_.size() - 1);
  };
  for (auto* v : g.inputs)
    if (!groupOf_.count(v)) newGroup(v);
  const int N = (int)lowered.size();
  workspace_.assign(N, -1);
  for (int i = 0; i < N; ++i) {
    LoweredNode& L = lowered[i];
    if (L.skip) continue;
    Node& n = *L.node;
    const OpDef* d = OpRegistry::instance().find(n.type);
    Value* in0 = n.input(0);
    bool alias = reuse && d && d->aliasesInput0 && n.outputs.size() == 1 && in0 && !in0->isConstant() &&
                 !graphIn.count(in0) && !graphOut.count(in0) && groupOf_.count(in0) && lastUse_[in0] == i &&
                 n.outputs[0]->type.byteSize() == in0->type.byteSize() && !n.outputs[0]->isConstant() &&
                 !n.outputs[0]->shapeFromData &&
                 L.call.workspaceBytes == 0;
    if (alias) {
      int gi = groupOf_[in0];
      ownGroup_.erase(gi);
      groupOf_[n.outputs[0]] = gi;
      groups_[gi].last = std::max(groups_[gi].last, lastUse_[n.outputs[0]]);
      L.skip = true;
      continue;
    }
    for (auto* o : n.outputs) newGroup(o);
    if (sliceConcats_ && sliceConcat(n, i, graphOut)) {
      L.skip = true;
      continue;
    }
    if (L.call.workspaceBytes > 0) {
      PlanBuffer pb;
      pb.size = L.call.workspaceBytes;
      pb.first = pb.last = i;
      groups_.push_back(pb);
      workspace_[i] = (int)groups_.size() - 1;
    }
  }
}

// Concat without copies: when every input of a Concat is the sole-use output of an earlier
// step, in a group of its own, and the axis has only 1s before it (each input is then one
// contiguous byte range of the output), the producers write straight into their slices: each
// input's group gets no arena memory of its own, its region is placed inside the output's, and
// the Concat step is skipped. The output's group lives from the first producer on.
// (SqueezeNet's fire modules, GoogLeNet's inception blocks.) Not in `oom` builds: the red zones
// checked around each region would be the neighbouring slices.
bool BufferPlan::sliceConcat(const Node& n, int step, const std::set<const Value*>& graphOut) {
  if (n.type != "Concat" || n.outputs.size() != 1) return false;
  const Value* y = n.outputs[0];
  if (graphOut.count(y) || y->isConstant() || !y->type.isStatic()) return false;
  const int64_t axis = normalizeAxis(n.attrInt("axis", 0), y->type.rank(), n);
  for (int64_t d = 0; d < axis; ++d)
    if (y->type.shape[d] != 1) return false;
  std::set<const Value*> seen;
  int first = defAt_[y];
  for (const Value* v : n.inputs) {
    if (!v || !v->producer || v->isConstant() || graphOut.count(v) || !seen.insert(v).second || !groupOf_.count(v) ||
        !ownGroup_.count(groupOf_[v]) || uses_[v] != 1 || lastUse_[v] != step || v->type.dtype != y->type.dtype ||
        !v->type.isStatic())
      return false;
    first = std::min(first, defAt_[v]);
  }
  const int gc = groupOf_[y];
  int64_t off = 0;
  for (const Value* v : n.inputs) {
    const int gv = groupOf_[v];
    const int64_t size = std::max<int64_t>(v->type.byteSize(), 0);
    slices_.push_back({gv, gc, off, size});
    groups_[gv].size = 0;
    ownGroup_.erase(gv);
    off += size;
  }
  if (off != groups_[gc].size) internalError("Concat " + n.name + ": slices do not cover the output");
  groups_[gc].first = first;
  return true;
}

int BufferPlan::weightOf(const Value* v) {
  const Tensor* t = v->constant.get();
  auto it = weightRegion_.find(t);
  if (it != weightRegion_.end()) return it->second;
  WeightStore::Place p = weights_.place(v->constant);
  auto r = regionAt_.find({p.offset, p.size});
  if (r == regionAt_.end()) {
    regions_.push_back({true, p.offset, p.size});
    r = regionAt_.emplace(std::make_pair(p.offset, p.size), (int)regions_.size() - 1).first;
  }
  weightRegion_[t] = r->second;
  return r->second;
}

void BufferPlan::releaseConstants(Graph& g) {
  for (auto& v : g.values())
    if (v->constant && weightRegion_.count(v->constant.get())) v->constant.reset();
  weightRegion_.clear();  // names tensors that may be freed now
}

int BufferPlan::dimsRegionOf(const Value* v) {
  const int g = regionOf(v);
  if (!regions_[(size_t)g].run) internalError("value " + v->name + " is not run-sized");
  auto it = dimsRegion_.find(g);
  if (it != dimsRegion_.end()) return it->second;
  regions_.push_back({false, regions_[(size_t)g].offset, regions_[(size_t)g].size});
  return dimsRegion_[g] = (int)regions_.size() - 1;
}

int BufferPlan::regionOf(const Value* v, bool nodeInput) {
  if (nodeInput && v->isConstant()) return weightOf(v);
  auto it = groupOf_.find(v);
  if (it != groupOf_.end()) return it->second;
  if (v->isConstant()) return weightOf(v);
  internalError("value " + v->name + " has no buffer");
}

}  // namespace atc
