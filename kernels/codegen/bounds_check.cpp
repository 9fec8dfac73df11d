#include "kernels/codegen/bounds_check.h"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>

#include "kernels/lib/kernel_abi.h"

namespace atc {
namespace {

using namespace llvm;

// Where an access's address comes from: buffer slots of the table (the table itself is slot
// -2), and whether some of it could not be followed (unknown) or is not a buffer at all
// (other: the stack, a global, the runtime's arguments).
struct Origin {
  SmallVector<int, 2> slots;
  bool unknown = false, other = false;
  void addSlot(int s) {
    for (int x : slots)
      if (x == s) return;
    slots.push_back(s);
  }
};

constexpr int kTableSlot = -2;

class Instrumenter {
 public:
  Instrumenter(Function& f, Argument* table, const std::vector<int64_t>& bytes)
      : f_(f), table_(table), bytes_(bytes), dl_(f.getParent()->getDataLayout()), c_(f.getContext()) {}

  BoundsCheckStats run() {
    struct Access {
      Instruction* inst;
      Value* ptr;
      bool store;
    };
    std::vector<Access> accesses;
    for (Instruction& I : instructions(f_)) {
      if (auto* ld = dyn_cast<LoadInst>(&I)) accesses.push_back({&I, ld->getPointerOperand(), false});
      else if (auto* st = dyn_cast<StoreInst>(&I)) accesses.push_back({&I, st->getPointerOperand(), true});
      else if (auto* mt = dyn_cast<MemTransferInst>(&I)) {
        accesses.push_back({&I, mt->getRawDest(), true});
        accesses.push_back({&I, mt->getRawSource(), false});
      } else if (auto* ms = dyn_cast<MemSetInst>(&I)) accesses.push_back({&I, ms->getRawDest(), true});
      else if (auto* ii = dyn_cast<IntrinsicInst>(&I)) {
        switch (ii->getIntrinsicID()) {
          case Intrinsic::masked_load: case Intrinsic::masked_gather:
            accesses.push_back({&I, ii->getArgOperand(0), false});
            break;
          case Intrinsic::masked_store: case Intrinsic::masked_scatter:
            accesses.push_back({&I, ii->getArgOperand(1), true});
            break;
          default:
            if (ii->mayReadOrWriteMemory() && !isa<DbgInfoIntrinsic>(ii) && !ii->isAssumeLikeIntrinsic()) stats_.unchecked++;
        }
      } else if (auto* call = dyn_cast<CallBase>(&I)) {
        // Indirect calls are the runtime's (parallel_for); a direct call to a declared
        // function (a libm routine) may touch memory the checks do not see.
        Function* callee = call->getCalledFunction();
        if (callee && callee->isDeclaration() && call->mayReadOrWriteMemory()) stats_.unchecked++;
      }
    }
    for (const Access& a : accesses) instrument(a.inst, a.ptr, a.store);
    return stats_;
  }

 private:
  // The pointer an integer expression (alignment arithmetic: (p + 63) & -64, + an offset)
  // was computed from, or null.
  const Value* pointerOfInt(const Value* v, int depth) {
    if (depth > 8) return nullptr;
    if (auto* p2i = dyn_cast<PtrToIntOperator>(v)) return p2i->getPointerOperand();
    auto* bo = dyn_cast<BinaryOperator>(v);
    if (!bo) return nullptr;
    const Value* found = nullptr;
    for (int k = 0; k < 2; ++k) {
      if (k == 1 && bo->getOpcode() == Instruction::Sub) break;  // p - x, never x - p
      if (const Value* p = pointerOfInt(bo->getOperand(k), depth + 1)) {
        if (found) return nullptr;
        found = p;
      }
    }
    return found;
  }

  // Slot of a buffer base: a load of table + 8 * slot.
  int slotOfBase(const Value* o) {
    auto* ld = dyn_cast<LoadInst>(o);
    if (!ld || !ld->getType()->isPointerTy()) return -1;
    APInt off(dl_.getIndexTypeSizeInBits(ld->getPointerOperandType()), 0);
    const Value* p = ld->getPointerOperand()->stripAndAccumulateConstantOffsets(dl_, off, true);
    int64_t o8 = off.getSExtValue();
    if (p != table_ || o8 < 0 || o8 % 8 || o8 / 8 >= (int64_t)bytes_.size()) return -1;
    return (int)(o8 / 8);
  }

  void origin(const Value* v, Origin& out, int depth) {
    if (v->getType()->isVectorTy()) {  // a gather's or scatter's vector of addresses
      const Value* s = nullptr;
      if (auto* gep = dyn_cast<GEPOperator>(v)) s = gep->getPointerOperand();
      else s = getSplatValue(v);
      if (s && depth < 8) origin(s, out, depth + 1);
      else out.unknown = true;
      return;
    }
    SmallVector<const Value*, 4> objs;
    getUnderlyingObjects(v, objs, nullptr, 0);
    for (const Value* o : objs) {
      if (o->getType()->isVectorTy()) {
        if (const Value* s = getSplatValue(o); s && depth < 8) origin(s, out, depth + 1);
        else out.unknown = true;
        continue;
      }
      if (o == table_) {
        out.addSlot(kTableSlot);
        continue;
      }
      // An argument of an entry is the runtime's (rt); of any other function (one the inliner
      // left) it may be a buffer: unknown there.
      if (isa<Argument>(o) && !table_) {
        out.unknown = true;
        continue;
      }
      if (isa<AllocaInst>(o) || isa<GlobalValue>(o) || isa<Argument>(o) || isa<ConstantPointerNull>(o) ||
          isa<UndefValue>(o)) {
        out.other = true;
        continue;
      }
      int s = slotOfBase(o);
      if (s >= 0) {
        out.addSlot(s);
        continue;
      }
      if (auto* fr = dyn_cast<FreezeInst>(o); fr && depth < 8) {
        origin(fr->getOperand(0), out, depth + 1);
        continue;
      }
      if (auto* i2p = dyn_cast<IntToPtrInst>(o))
        if (const Value* p = pointerOfInt(i2p->getOperand(0), 0); p && depth < 8) {
          origin(p, out, depth + 1);
          continue;
        }
      out.unknown = true;
    }
  }

  struct Region {
    int slot;
    Value* base;  // i64 address
    int64_t size;
  };

  std::vector<Region> regions(IRBuilder<>& b, const Origin& o) {
    auto* i64 = Type::getInt64Ty(c_);
    auto* ptr = PointerType::get(c_, 0);
    std::vector<Region> rs;
    auto add = [&](int s) {
      if (s == kTableSlot) {
        rs.push_back({s, b.CreatePtrToInt(table_, i64), 8 * (int64_t)bytes_.size()});
        return;
      }
      if (bytes_[s] <= 0) return;
      Value* base = b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), table_, 8 * (uint64_t)s));
      rs.push_back({s, b.CreatePtrToInt(base, i64), bytes_[s]});
    };
    if (o.unknown) {
      for (int s = 0; s < (int)bytes_.size(); ++s) add(s);
    } else {
      for (int s : o.slots) add(s);
    }
    return rs;
  }

  void trap(Instruction* at, Value* cond, const Region* single, Value* off, Value* addr, Value* len, bool store) {
    MDNode* cold = MDBuilder(c_).createBranchWeights(1, 1 << 20);
    Instruction* term = SplitBlockAndInsertIfThen(cond, at->getIterator(), true, cold);
    IRBuilder<> b(term);
    auto* i64 = b.getInt64Ty();
    int slot = single ? single->slot : -1;
    uint64_t what = (uint64_t)(uint32_t)slot | (uint64_t)(store ? 1 : 0) << 32;
    auto* asmTy = FunctionType::get(b.getVoidTy(), {i64, i64, i64, i64, i64}, false);
    InlineAsm* ia = InlineAsm::get(asmTy, "ud2", "{rdi},{rsi},{rdx},{rcx},{r11},~{memory}", true);
    b.CreateCall(asmTy, ia,
                 {b.getInt64(what), single ? off : addr, len, b.getInt64(single ? (uint64_t)single->size : 0),
                  b.getInt64(ATCK_OOB_TRAP_MAGIC)});
  }

  // A plain load or store of the argument table at a constant offset inside it (every kernel
  // reads its buffer pointers so): nothing to check at run time.
  bool provenInTable(Instruction* I, Value* ptr, bool store) {
    if (!isa<LoadInst>(I) && !isa<StoreInst>(I)) return false;
    APInt off(dl_.getIndexTypeSizeInBits(ptr->getType()), 0);
    if (ptr->stripAndAccumulateConstantOffsets(dl_, off, true) != table_) return false;
    Type* t = store ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
    int64_t o = off.getSExtValue(), n = (int64_t)dl_.getTypeStoreSize(t);
    return o >= 0 && o + n <= 8 * (int64_t)bytes_.size();
  }

  void instrument(Instruction* I, Value* ptr, bool store) {
    Origin o;
    origin(ptr, o, 0);
    if (o.slots.empty() && !o.unknown) return;  // the stack, a global, the runtime's arguments
    bool anyBuf = false;
    for (int64_t n : bytes_) anyBuf = anyBuf || n > 0;
    if (o.other || (o.unknown && !anyBuf)) {
      stats_.unchecked++;
      return;
    }
    (o.unknown ? stats_.anyBuffer : stats_.checked)++;
    if (ptr->getType()->isVectorTy()) return instrumentLanes(I, ptr, store, o);
    if (provenInTable(I, ptr, store)) return;
    IRBuilder<> b(I);
    auto* i64 = b.getInt64Ty();
    Value *lo = b.getInt64(0), *hi = nullptr, *active = nullptr;
    if (auto* ii = dyn_cast<IntrinsicInst>(I); ii && (ii->getIntrinsicID() == Intrinsic::masked_load ||
                                                   ii->getIntrinsicID() == Intrinsic::masked_store)) {
      auto* vt = cast<FixedVectorType>(store ? ii->getArgOperand(0)->getType() : ii->getType());
      unsigned n = vt->getNumElements();
      int64_t esz = (int64_t)dl_.getTypeStoreSize(vt->getElementType());
      Value* bits = b.CreateBitCast(ii->getArgOperand(store ? 3 : 2), b.getIntNTy(n));
      Value* tz = b.CreateZExtOrTrunc(b.CreateBinaryIntrinsic(Intrinsic::cttz, bits, b.getFalse()), i64);
      Value* lz = b.CreateZExtOrTrunc(b.CreateBinaryIntrinsic(Intrinsic::ctlz, bits, b.getFalse()), i64);
      lo = b.CreateMul(tz, b.getInt64(esz));
      hi = b.CreateMul(b.CreateSub(b.getInt64(n), lz), b.getInt64(esz));
      active = b.CreateICmpNE(bits, ConstantInt::get(bits->getType(), 0));
    } else if (auto* mi = dyn_cast<MemIntrinsic>(I)) {
      hi = b.CreateZExtOrTrunc(mi->getLength(), i64);
      active = b.CreateICmpNE(hi, b.getInt64(0));
    } else {
      Type* t = store ? cast<StoreInst>(I)->getValueOperand()->getType() : I->getType();
      hi = b.getInt64((int64_t)dl_.getTypeStoreSize(t));
    }
    Value* addr = b.CreatePtrToInt(ptr, i64);
    std::vector<Region> rs = regions(b, o);
    Value* bad = b.getTrue();
    Value* firstOff = nullptr;
    for (const Region& r : rs) {
      Value* off = b.CreateSub(addr, r.base);
      if (!firstOff) firstOff = off;
      Value* out = b.CreateOr(b.CreateICmpSLT(b.CreateAdd(off, lo), b.getInt64(0)),
                              b.CreateICmpSGT(b.CreateAdd(off, hi), b.getInt64(r.size)));
      bad = b.CreateAnd(bad, out);
    }
    if (active) bad = b.CreateAnd(bad, active);
    const Region* single = rs.size() == 1 && !o.unknown ? &rs[0] : nullptr;
    Value* len = b.CreateSub(hi, lo);
    trap(I, bad, single, single ? b.CreateAdd(firstOff, lo) : nullptr, b.CreateAdd(addr, lo), len, store);
  }

  // Gather / scatter: every active lane's element must lie inside the buffer.
  void instrumentLanes(Instruction* I, Value* ptrs, bool store, const Origin& o) {
    auto* ii = cast<IntrinsicInst>(I);
    IRBuilder<> b(I);
    auto* i64 = b.getInt64Ty();
    auto* vt = cast<FixedVectorType>(ptrs->getType());
    unsigned n = vt->getNumElements();
    Type* et = cast<FixedVectorType>(store ? ii->getArgOperand(0)->getType() : ii->getType())->getElementType();
    int64_t esz = (int64_t)dl_.getTypeStoreSize(et);
    auto* v64 = FixedVectorType::get(i64, n);
    Value* addrs = b.CreatePtrToInt(ptrs, v64);
    Value* mask = ii->getArgOperand(store ? 3 : 2);
    std::vector<Region> rs = regions(b, o);
    Value* bad = ConstantInt::getTrue(FixedVectorType::get(b.getInt1Ty(), n));
    Value* firstOff = nullptr;
    for (const Region& r : rs) {
      Value* off = b.CreateSub(addrs, b.CreateVectorSplat(n, r.base));
      if (!firstOff) firstOff = off;
      Value* out = b.CreateOr(b.CreateICmpSLT(off, ConstantInt::get(v64, 0)),
                              b.CreateICmpSGT(b.CreateAdd(off, ConstantInt::get(v64, esz)), ConstantInt::get(v64, r.size)));
      bad = b.CreateAnd(bad, out);
    }
    bad = b.CreateAnd(bad, mask);
    Value* bits = b.CreateBitCast(bad, b.getIntNTy(n));
    Value* lane = b.CreateBinaryIntrinsic(Intrinsic::cttz, bits, b.getFalse());
    lane = b.CreateSelect(b.CreateICmpULT(lane, ConstantInt::get(bits->getType(), n)), lane,
                          ConstantInt::get(bits->getType(), 0));
    const Region* single = rs.size() == 1 && !o.unknown ? &rs[0] : nullptr;
    Value* any = b.CreateICmpNE(bits, ConstantInt::get(bits->getType(), 0));
    Value* off = single ? b.CreateExtractElement(firstOff, lane) : nullptr;
    trap(I, any, single, off, b.CreateExtractElement(addrs, lane), b.getInt64(esz), store);
  }

  Function& f_;
  Argument* table_;
  const std::vector<int64_t>& bytes_;
  const DataLayout& dl_;
  LLVMContext& c_;
  BoundsCheckStats stats_;
};

}  // namespace

BoundsCheckStats instrumentBoundsChecks(llvm::Function& f, llvm::Argument* table, const std::vector<int64_t>& bufBytes) {
  return Instrumenter(f, table, bufBytes).run();
}

}  // namespace atc
