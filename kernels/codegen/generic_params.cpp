#include "kernels/codegen/generic_params.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Operator.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>

namespace atc {
namespace {

constexpr const char* kPlaceholder = "atc_generic_params";

// Replaces the loads at a constant byte offset `off` from the params that hit a baked param.
void foldBakedLoads(llvm::Value* p, int64_t off, const llvm::DataLayout& dl, const std::vector<int64_t>& params,
                    const std::vector<uint8_t>& runtime) {
  std::vector<llvm::User*> users(p->user_begin(), p->user_end());
  for (llvm::User* u : users) {
    if (auto* ld = llvm::dyn_cast<llvm::LoadInst>(u)) {
      llvm::Type* t = ld->getType();
      if (ld->getPointerOperand() != p || ld->isVolatile() || off < 0 || off % 8) continue;
      size_t k = (size_t)(off / 8);
      if (k >= params.size() || (k < runtime.size() && runtime[k])) continue;
      llvm::Constant* c = nullptr;
      if (t->isIntegerTy(64)) c = llvm::ConstantInt::get(t, (uint64_t)params[k]);
      else if (t->isDoubleTy())
        c = llvm::ConstantFP::get(t, llvm::APFloat(llvm::APFloat::IEEEdouble(), llvm::APInt(64, (uint64_t)params[k])));
      if (!c) continue;
      ld->replaceAllUsesWith(c);
      ld->eraseFromParent();
    } else if (auto* gep = llvm::dyn_cast<llvm::GEPOperator>(u)) {
      if (gep->getPointerOperand() != p) continue;
      llvm::APInt delta(dl.getIndexTypeSizeInBits(gep->getType()), 0);
      if (gep->accumulateConstantOffset(dl, delta))
        foldBakedLoads(gep, off + delta.getSExtValue(), dl, params, runtime);
    }
  }
}

void inlineAndSimplify(llvm::Module& m, llvm::TargetMachine* tm, const std::vector<llvm::Function*>& entries) {
  for (auto& f : m) {
    if (f.isDeclaration() || f.hasFnAttribute(llvm::Attribute::NoInline)) continue;
    if (std::find(entries.begin(), entries.end(), &f) != entries.end()) continue;
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass());
  llvm::FunctionPassManager fpm;
  fpm.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  fpm.addPass(llvm::EarlyCSEPass());
  fpm.addPass(llvm::InstCombinePass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  mpm.run(m, mam);
}

}  // namespace

llvm::Value* genericParamsPlaceholder(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* bufs) {
  auto* ptr = llvm::PointerType::get(m.getContext(), 0);
  llvm::FunctionCallee f = m.getOrInsertFunction(kPlaceholder, llvm::FunctionType::get(ptr, {ptr}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setDoesNotAccessMemory();
  }
  return b.CreateCall(f, {bufs}, "atc_params");
}

void bakeGenericParams(llvm::Module& m, llvm::TargetMachine* tm, const std::vector<int64_t>& params,
                       const std::vector<uint8_t>& runtime, const std::vector<llvm::Function*>& entries) {
  inlineAndSimplify(m, tm, entries);
  llvm::Function* ph = m.getFunction(kPlaceholder);
  if (!ph) return;
  const llvm::DataLayout& dl = m.getDataLayout();
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : ph->users())
    if (auto* c = llvm::dyn_cast<llvm::CallInst>(u)) calls.push_back(c);
  auto* ptr = llvm::PointerType::get(m.getContext(), 0);
  for (llvm::CallInst* c : calls) {
    foldBakedLoads(c, 0, dl, params, runtime);
    llvm::IRBuilder<> b(c);
    llvm::Value* slot = b.CreateConstGEP1_64(ptr, c->getArgOperand(0), -1);
    c->replaceAllUsesWith(b.CreateLoad(ptr, slot, "atc_rt_params"));
    c->eraseFromParent();
  }
  if (ph->use_empty()) ph->eraseFromParent();
}

}  // namespace atc
