// Kernel specialisation and machine-code generation with LLVM (see codegen.h).
//
// Per kernel instance: clone the needed part of the embedded kernel bitcode, bake the params
// in as a constant array, add the exported entry (AtcKernelEntry), internalize everything
// else, retarget every function to the profile's CPU/features, run the O3 pipeline and emit
// an ELF object. All objects are then linked into one shared object by lld (lld_link.cpp).
#include "kernels/codegen/codegen.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <llvm/ADT/SmallVector.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DIBuilder.h>
#include <llvm/IR/DebugInfo.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include <nlohmann/json.hpp>

#include "cache/sha256.h"
#include "support/diagnostics.h"
#include "kernels/codegen/bounds_check.h"
#include "kernels/codegen/generic_params.h"
#include "kernels/codegen/lld_link.h"

extern "C" const char atc_kernels_bc_begin[], atc_kernels_bc_end[];

namespace atc {
namespace {

void initLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();  // the inline `ud2` of oom bounds checks
  });
}

[[noreturn]] void cgError(const std::string& msg) {
  throw AtcError("E20001", "Kernel compilation failed: " + msg,
                 "Check the target profile (--soc_version) and report the model if it persists.");
}

bool timingEnabled() {
  static const bool on = std::getenv("ATC_CODEGEN_TIMING") != nullptr;
  return on;
}

// Functions and variables reachable from the roots (through instruction operands and
// initializers): the only definitions worth cloning for one instance.
std::set<const llvm::GlobalValue*> reachableGlobals(const std::vector<const llvm::GlobalValue*>& roots) {
  std::set<const llvm::GlobalValue*> seen;
  std::vector<const llvm::GlobalValue*> work(roots.begin(), roots.end());
  std::set<const llvm::Constant*> seenConst;
  auto visitConst = [&](const llvm::Constant* c, auto& self) -> void {
    if (auto* gv = llvm::dyn_cast<llvm::GlobalValue>(c)) {
      work.push_back(gv);
      return;
    }
    if (!seenConst.insert(c).second) return;
    for (auto& op : c->operands())
      if (auto* oc = llvm::dyn_cast<llvm::Constant>(op.get())) self(oc, self);
  };
  while (!work.empty()) {
    const llvm::GlobalValue* g = work.back();
    work.pop_back();
    if (!seen.insert(g).second) continue;
    if (auto* f = llvm::dyn_cast<llvm::Function>(g)) {
      for (auto& bb : *f)
        for (auto& inst : bb)
          for (auto& op : inst.operands())
            if (auto* c = llvm::dyn_cast<llvm::Constant>(op.get())) visitConst(c, visitConst);
    } else if (auto* v = llvm::dyn_cast<llvm::GlobalVariable>(g)) {
      if (v->hasInitializer()) visitConst(v->getInitializer(), visitConst);
    } else if (auto* a = llvm::dyn_cast<llvm::GlobalAlias>(g)) {
      visitConst(a->getAliasee(), visitConst);
    }
  }
  return seen;
}

// For targets without F16C: the kernels' float16 conversions (fpext / fptrunc between half and
// float, kernel_abi.h) become calls to the software versions atck_soft_h2f / atck_soft_f2h
// (kernels/lib/f16_soft.cpp), so no compiler runtime library is needed. Runs before the
// optimisation pipeline, which inlines and vectorises the calls as before.
void softHalfConversions(llvm::Module& m) {
  llvm::Function* h2f = m.getFunction("atck_soft_h2f");
  llvm::Function* f2h = m.getFunction("atck_soft_f2h");
  if (!h2f || !f2h) cgError("the kernel library lacks the software float16 conversions");
  std::vector<llvm::Instruction*> dead;
  for (llvm::Function& f : m)
    for (llvm::Instruction& inst : llvm::instructions(f)) {
      llvm::IRBuilder<> b(&inst);
      if (auto* e = llvm::dyn_cast<llvm::FPExtInst>(&inst); e && e->getSrcTy()->isHalfTy()) {
        if (!e->getDestTy()->isFloatTy()) cgError("float16 widened to a type other than float32");
        auto* call = b.CreateCall(h2f, {b.CreateBitCast(e->getOperand(0), b.getInt16Ty())});
        call->setAttributes(h2f->getAttributes());
        e->replaceAllUsesWith(call);
        dead.push_back(e);
      } else if (auto* t = llvm::dyn_cast<llvm::FPTruncInst>(&inst); t && t->getDestTy()->isHalfTy()) {
        if (!t->getSrcTy()->isFloatTy()) cgError("float16 rounded from a type other than float32");
        auto* call = b.CreateCall(f2h, {t->getOperand(0)});
        call->setAttributes(f2h->getAttributes());
        t->replaceAllUsesWith(b.CreateBitCast(call, t->getDestTy()));
        dead.push_back(t);
      }
    }
  for (llvm::Instruction* i : dead) i->eraseFromParent();
}

void retarget(llvm::Function& f, const TargetProfile& t) {
  f.removeFnAttr("target-cpu");
  f.removeFnAttr("target-features");
  f.removeFnAttr("tune-cpu");
  f.addFnAttr("target-cpu", t.cpu);
  if (!t.features.empty()) f.addFnAttr("target-features", t.features);
  // The profile's vector width (TargetProfile::vectorBits): the 512-bit microkernel family
  // needs its 512-bit vector types kept whole (LLVM splits them in two on CPUs tuned to prefer
  // 256 bits unless told otherwise), and loops LLVM vectorises use the same width.
  const std::string vb = std::to_string(t.vectorBits);
  f.removeFnAttr("prefer-vector-width");
  f.removeFnAttr("min-legal-vector-width");
  f.addFnAttr("prefer-vector-width", vb);
  if (t.vectorBits >= 512) f.addFnAttr("min-legal-vector-width", vb);
  f.removeFnAttr(llvm::Attribute::OptimizeNone);
  // NoInline stays: the library is compiled without optimisation passes, so only functions the
  // source marks __attribute__((noinline)) carry it (cube_ukoc_rows: the microkernel keeps its
  // own register allocation instead of sharing the caller's, docs/kernels-cube.md).
}

// kernel_meta keeps the library's line tables: the generated entry and trampoline get an
// artificial subprogram (at the kernel's task function) so that the code inlined into them
// keeps its kernels/lib lines in the assembly (.loc) and the verifier accepts the calls.
void addArtificialScopes(llvm::Module& m, std::initializer_list<llvm::Function*> fns, llvm::Function* task) {
  llvm::DISubprogram* tsp = task->getSubprogram();
  if (!tsp) return;
  llvm::DIBuilder dib(m, false, tsp->getUnit());
  auto* ty = dib.createSubroutineType(dib.getOrCreateTypeArray({}));
  for (llvm::Function* f : fns) {
    auto* sp = dib.createFunction(tsp->getFile(), f->getName(), f->getName(), tsp->getFile(), tsp->getLine(), ty,
                                  tsp->getLine(), llvm::DINode::FlagArtificial, llvm::DISubprogram::SPFlagDefinition);
    f->setSubprogram(sp);
    auto* loc = llvm::DILocation::get(m.getContext(), tsp->getLine(), 0, sp);
    for (auto& inst : llvm::instructions(*f))
      if (!inst.getDebugLoc()) inst.setDebugLoc(loc);
  }
  dib.finalize();
}

// One compile worker: its own context, parsed library and target machine.
class Worker {
 public:
  Worker(const TargetProfile& t, const CodegenOptions& o) : target_(t), opts_(o) {
    auto t0 = std::chrono::steady_clock::now();
    auto buf = llvm::MemoryBuffer::getMemBuffer(
        llvm::StringRef(atc_kernels_bc_begin, (size_t)(atc_kernels_bc_end - atc_kernels_bc_begin)),
        "atc_kernels.bc", false);
    auto mod = llvm::parseBitcodeFile(buf->getMemBufferRef(), ctx_);
    if (!mod) cgError("cannot read the embedded kernel library: " + llvm::toString(mod.takeError()));
    lib_ = std::move(*mod);
    if (timingEnabled())
      llvm::errs() << "[codegen] parse kernel library: "
                   << llvm::format("%.1f", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count())
                   << " ms\n";
    std::string err;
    const llvm::Target* tgt = llvm::TargetRegistry::lookupTarget(target_.triple, err);
    if (!tgt) cgError("target triple " + target_.triple + ": " + err);
    llvm::TargetOptions to;
    auto ol = opts_.optLevel <= 0 ? llvm::CodeGenOptLevel::None
              : opts_.optLevel == 1 ? llvm::CodeGenOptLevel::Less
              : opts_.optLevel == 2 ? llvm::CodeGenOptLevel::Default
                                    : llvm::CodeGenOptLevel::Aggressive;
    tm_.reset(tgt->createTargetMachine(target_.triple, target_.cpu, target_.features, to,
                                       llvm::Reloc::PIC_, std::nullopt, ol));
    if (!tm_) cgError("cannot create a target machine for " + target_.triple + " / " + target_.cpu);
    softHalf_ = !tm_->getMCSubtargetInfo()->checkFeatures("+f16c");
  }

  // Compiles one instance; its entry is named entrySymbol (the cache key's name, so that the
  // object does not depend on the model; the link aliases the instance symbol to it).
  std::vector<uint8_t> compile(const KernelInstance& ki, const std::string& entrySymbol) {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    std::string ntName = "atck_" + ki.kernel + "_ntasks", taskName = "atck_" + ki.kernel + "_task";
    llvm::Function* libNt = lib_->getFunction(ntName);
    llvm::Function* libTask = lib_->getFunction(taskName);
    if (!libNt || !libTask || libNt->isDeclaration() || libTask->isDeclaration())
      cgError("kernel '" + ki.kernel + "' is not in the kernel library");
    std::vector<const llvm::GlobalValue*> roots = {libNt, libTask};
    if (softHalf_)
      for (const char* f : {"atck_soft_h2f", "atck_soft_f2h"})
        if (llvm::Function* g = lib_->getFunction(f)) roots.push_back(g);
    // The kernel's source line, from the library's line tables (kernel_meta's JSON).
    std::string srcFile;
    unsigned srcLine = 0;
    if (const llvm::DISubprogram* sp = libTask->getSubprogram()) {
      std::string dir = sp->getDirectory().str();  // "./kernels/lib" (the bitcode maps the source root to ".")
      srcFile = (dir.empty() ? "" : dir + "/") + sp->getFilename().str();
      if (srcFile.rfind("./", 0) == 0) srcFile = srcFile.substr(2);
      srcLine = sp->getLine();
    }
    auto keep = reachableGlobals(roots);
    llvm::ValueToValueMapTy vmap;
    std::unique_ptr<llvm::Module> m = llvm::CloneModule(
        *lib_, vmap, [&](const llvm::GlobalValue* g) { return keep.count(g) != 0; });
    auto t1 = Clock::now();

    m->setTargetTriple(target_.triple);
    m->setDataLayout(tm_->createDataLayout());
    llvm::Function* nt = m->getFunction(ntName);
    llvm::Function* task = m->getFunction(taskName);
    auto& c = m->getContext();
    auto* i64 = llvm::Type::getInt64Ty(c);
    auto* ptr = llvm::PointerType::get(c, 0);
    auto* voidTy = llvm::Type::getVoidTy(c);

    // The params: baked in as a constant array; a generic instance (KernelInstance::generic)
    // gets a placeholder that bakeGenericParams resolves (generic_params.h).
    auto* arrTy = llvm::ArrayType::get(i64, ki.params.size());
    llvm::Value* kp = nullptr;
    if (!ki.generic) {
      std::vector<uint64_t> pv(ki.params.begin(), ki.params.end());
      llvm::Constant* init = ki.params.empty() ? llvm::ConstantAggregateZero::get(arrTy)
                                               : llvm::ConstantDataArray::get(c, pv);
      auto* gv = new llvm::GlobalVariable(*m, arrTy, true, llvm::GlobalValue::PrivateLinkage, init,
                                          "atc_params");
      gv->setAlignment(llvm::Align(8));
      gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      kp = gv;
    }
    auto paramsOf = [&](llvm::IRBuilder<>& b, llvm::Value* bufs) -> llvm::Value* {
      return kp ? kp : genericParamsPlaceholder(b, *m, bufs);
    };

    // internal void tramp(ptr ctx, i64 b, i64 e) { task(params, ctx, b, e); }
    auto* trampTy = llvm::FunctionType::get(voidTy, {ptr, i64, i64}, false);
    auto* tramp = llvm::Function::Create(trampTy, llvm::GlobalValue::InternalLinkage, "atc_tramp", m.get());
    {
      llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "entry", tramp));
      b.CreateCall(task, {paramsOf(b, tramp->getArg(0)), tramp->getArg(0), tramp->getArg(1), tramp->getArg(2)});
      b.CreateRetVoid();
    }
    // void SYMBOL(ptr bufs, ptr rt)
    auto* entryTy = llvm::FunctionType::get(voidTy, {ptr, ptr}, false);
    auto* entry = llvm::Function::Create(entryTy, llvm::GlobalValue::ExternalLinkage, entrySymbol, m.get());
    entry->setVisibility(llvm::GlobalValue::HiddenVisibility);
    {
      auto* bbEntry = llvm::BasicBlock::Create(c, "entry", entry);
      auto* bbDirect = llvm::BasicBlock::Create(c, "direct", entry);
      auto* bbPar = llvm::BasicBlock::Create(c, "parallel", entry);
      llvm::IRBuilder<> b(bbEntry);
      llvm::Value* P = paramsOf(b, entry->getArg(0));
      llvm::Value* n = b.CreateCall(nt, {P});
      b.CreateCondBr(b.CreateICmpSLE(n, llvm::ConstantInt::get(i64, 1)), bbDirect, bbPar);
      b.SetInsertPoint(bbDirect);
      b.CreateCall(task, {P, entry->getArg(0), llvm::ConstantInt::get(i64, 0), n});
      b.CreateRetVoid();
      b.SetInsertPoint(bbPar);
      llvm::Value* rt = entry->getArg(1);
      llvm::Value* pool = b.CreateLoad(ptr, rt, "pool");
      llvm::Value* pfAddr = b.CreateConstInBoundsGEP1_64(llvm::Type::getInt8Ty(c), rt, 8);
      llvm::Value* pf = b.CreateLoad(ptr, pfAddr, "parallel_for");
      auto* pfTy = llvm::FunctionType::get(voidTy, {ptr, i64, ptr, ptr}, false);
      b.CreateCall(pfTy, pf, {pool, n, tramp, entry->getArg(0)});
      b.CreateRetVoid();
    }

    if (softHalf_) softHalfConversions(*m);
    if (ki.generic) stubUnsupportedPaths(*m, task);

    // Internalize everything but the entry; retarget all functions.
    for (auto& f : *m) {
      if (!f.isDeclaration() && &f != entry) f.setLinkage(llvm::GlobalValue::InternalLinkage);
      if (!f.isDeclaration()) retarget(f, target_);
    }
    for (auto& g : m->globals())
      if (!g.isDeclaration()) g.setLinkage(llvm::GlobalValue::InternalLinkage);
    if (auto* used = m->getGlobalVariable("llvm.used")) used->eraseFromParent();
    if (auto* used = m->getGlobalVariable("llvm.compiler.used")) used->eraseFromParent();

    // Line tables stay only for kernel_meta (its .ll and .s map instructions to kernels/lib
    // lines); otherwise the code is what it was without them and the objects carry none.
    if (opts_.kernelMetaDir.empty()) llvm::StripDebugInfo(*m);
    else addArtificialScopes(*m, {tramp, entry}, task);
    if (ki.boundsCheck) inlineEverything(*m, {entry, tramp});
    if (ki.generic) bakeGenericParams(*m, tm_.get(), ki.params, ki.runtimeParams, {entry, tramp});
    if (llvm::verifyModule(*m, &llvm::errs())) cgError("invalid IR for kernel " + ki.kernel);
    optimize(*m);
    BoundsCheckStats bounds;
    if (ki.boundsCheck) {
      bounds = addBoundsChecks(ki, *m, {entrySymbol, "atc_tramp"});
      if (llvm::verifyModule(*m, &llvm::errs())) cgError("invalid bounds-checked IR for kernel " + ki.kernel);
    }
    auto t2 = Clock::now();
    if (!opts_.kernelMetaDir.empty()) writeIrAndAssembly(ki, *m);
    std::vector<uint8_t> obj = emit(*m, llvm::CodeGenFileType::ObjectFile);
    auto t3 = Clock::now();
    if (timingEnabled()) {
      auto ms = [](auto a, auto b) {
        return llvm::format("%.1f", std::chrono::duration<double, std::milli>(b - a).count());
      };
      llvm::errs() << "[codegen] " << ki.symbol << " " << ki.kernel << ": clone " << ms(t0, t1)
                   << " ms, opt " << ms(t1, t2) << " ms, emit " << ms(t2, t3) << " ms\n";
    }
    if (!opts_.kernelMetaDir.empty()) writeKernelMetaFiles(ki, entrySymbol, obj, srcFile, srcLine, bounds);
    return obj;
  }

 private:
  // The O3 pipeline (it includes the always-inliner and GlobalDCE).
  void optimize(llvm::Module& mod) {
    llvm::Module* m = &mod;
    {
      llvm::LoopAnalysisManager lam;
      llvm::FunctionAnalysisManager fam;
      llvm::CGSCCAnalysisManager cgam;
      llvm::ModuleAnalysisManager mam;
      llvm::PipelineTuningOptions pto;
      pto.LoopVectorization = opts_.optLevel >= 2;
      pto.SLPVectorization = opts_.optLevel >= 2;
      llvm::PassBuilder pb(tm_.get(), pto);
      pb.registerModuleAnalyses(mam);
      pb.registerCGSCCAnalyses(cgam);
      pb.registerFunctionAnalyses(fam);
      pb.registerLoopAnalyses(lam);
      pb.crossRegisterProxies(lam, fam, cgam, mam);
      llvm::OptimizationLevel lvl = opts_.optLevel <= 0 ? llvm::OptimizationLevel::O0
                                    : opts_.optLevel == 1 ? llvm::OptimizationLevel::O1
                                    : opts_.optLevel == 2 ? llvm::OptimizationLevel::O2
                                                          : llvm::OptimizationLevel::O3;
      llvm::ModulePassManager mpm = lvl == llvm::OptimizationLevel::O0
                                        ? pb.buildO0DefaultPipeline(lvl)
                                        : pb.buildPerModuleDefaultPipeline(lvl);
      mpm.run(*m, mam);
    }
  }

  // A generic instance keeps the code paths that params read at run time choose between: a
  // path for features this target lacks (an AMX tile function on an AVX-512 target), which a
  // specialised instance folds away, cannot be selected. Such functions (those whose source
  // target attribute asks for more than the library's default, see `base`, and more than the
  // target has) get a trapping body: the lowering never chooses them for this target.
  void stubUnsupportedPaths(llvm::Module& m, const llvm::Function* base) {
    auto featuresOf = [](const llvm::Function& f) {
      std::set<std::string> r;
      std::string fs = f.getFnAttribute("target-features").getValueAsString().str(), tok;
      for (size_t p = 0; p <= fs.size(); ++p)
        if (p == fs.size() || fs[p] == ',') {
          if (tok.size() > 1 && tok[0] == '+') r.insert(tok);
          tok.clear();
        } else {
          tok += fs[p];
        }
      return r;
    };
    const std::set<std::string> def = featuresOf(*base);
    const llvm::MCSubtargetInfo* sti = tm_->getMCSubtargetInfo();
    for (auto& f : m) {
      if (f.isDeclaration()) continue;
      std::string extra;
      for (auto& ft : featuresOf(f))
        if (!def.count(ft)) extra += (extra.empty() ? "" : ",") + ft;
      if (extra.empty() || sti->checkFeatures(extra)) continue;
      f.deleteBody();
      auto* bb = llvm::BasicBlock::Create(m.getContext(), "unsupported", &f);
      llvm::IRBuilder<> b(bb);
      b.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
      b.CreateUnreachable();
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }

  // `oom`: every function but the two entries is inlined, so that each access is seen where
  // the buffer table is (bounds_check.h follows addresses back to it within one function).
  static void inlineEverything(llvm::Module& m, std::initializer_list<llvm::Function*> keep) {
    for (auto& f : m) {
      if (f.isDeclaration() || std::find(keep.begin(), keep.end(), &f) != keep.end()) continue;
      f.removeFnAttr(llvm::Attribute::NoInline);
      f.removeFnAttr(llvm::Attribute::OptimizeNone);
      f.addFnAttr(llvm::Attribute::AlwaysInline);
    }
  }

  // Instruments both entries (the direct call and the thread pool's trampoline); any other
  // function left (one the inliner could not inline) has no buffer table: its accesses count
  // as unchecked.
  // (By name: the optimiser deletes the trampoline of a kernel that never runs in parallel.)
  BoundsCheckStats addBoundsChecks(const KernelInstance& ki, llvm::Module& m, std::initializer_list<std::string> entries) {
    BoundsCheckStats total;
    for (auto& f : m) {
      if (f.isDeclaration()) continue;
      bool isEntry = std::find(entries.begin(), entries.end(), f.getName().str()) != entries.end();
      llvm::Argument* table = isEntry ? f.getArg(0) : nullptr;
      BoundsCheckStats s = instrumentBoundsChecks(f, table, table ? ki.bufBytes : std::vector<int64_t>{});
      total.checked += s.checked, total.anyBuffer += s.anyBuffer, total.unchecked += s.unchecked;
    }
    if (timingEnabled())
      llvm::errs() << "[codegen] " << ki.symbol << " bounds checks: " << total.checked << " checked, " << total.anyBuffer
                   << " against any buffer, " << total.unchecked << " unchecked\n";
    return total;
  }

  // Code generation changes the module: emitting twice (kernel_meta's .s, then the object)
  // works on a copy for the first.
  std::vector<uint8_t> emit(llvm::Module& m, llvm::CodeGenFileType type) {
    llvm::SmallVector<char, 0> out;
    llvm::raw_svector_ostream os(out);
    llvm::legacy::PassManager pm;
    if (tm_->addPassesToEmitFile(pm, os, nullptr, type)) cgError("the target cannot emit object files");
    pm.run(m);
    return std::vector<uint8_t>(out.begin(), out.end());
  }

  void writeFile(const std::string& path, const void* data, size_t n) {
    std::error_code ec;
    llvm::raw_fd_ostream f(path, ec);
    if (!ec) f.write((const char*)data, n);
    if (ec || f.has_error()) cgError("cannot write kernel_meta file " + path);
  }

  // kernel_meta/<symbol>.ll (the optimised IR) and .s (its assembly, emitted from a copy).
  void writeIrAndAssembly(const KernelInstance& ki, llvm::Module& m) {
    std::string ir;
    llvm::raw_string_ostream os(ir);
    m.print(os, nullptr);
    os.flush();
    const std::string base = opts_.kernelMetaDir + "/" + ki.symbol;
    writeFile(base + ".ll", ir.data(), ir.size());
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(m);
    std::vector<uint8_t> text = emit(*copy, llvm::CodeGenFileType::AssemblyFile);
    writeFile(base + ".s", text.data(), text.size());
  }

  // kernel_meta/<symbol>.o and .json (docs/debugging.md).
  void writeKernelMetaFiles(const KernelInstance& ki, const std::string& entry, const std::vector<uint8_t>& obj,
                            const std::string& srcFile, unsigned srcLine, const BoundsCheckStats& bounds) {
    const std::string base = opts_.kernelMetaDir + "/" + ki.symbol;
    writeFile(base + ".o", obj.data(), obj.size());
    nlohmann::json j;
    j["symbol"] = ki.symbol;
    j["entry"] = entry;
    j["kernel"] = ki.kernel;
    j["params"] = ki.params;
    if (ki.generic) j["runtime_params"] = ki.runtimeParams;
    j["nodes"] = ki.nodes;
    j["op_types"] = ki.opTypes;
    j["source"] = {{"file", srcFile}, {"line", srcLine}, {"function", "atck_" + ki.kernel + "_task"}};
    j["target"] = {{"name", target_.name}, {"triple", target_.triple}, {"cpu", target_.cpu}, {"features", target_.features}};
    j["opt_level"] = opts_.optLevel;
    if (ki.boundsCheck)
      j["bounds_check"] = {{"buffer_bytes", ki.bufBytes},
                           {"checked", bounds.checked},
                           {"checked_against_any_buffer", bounds.anyBuffer},
                           {"unchecked", bounds.unchecked}};
    std::string text = j.dump(2) + "\n";
    writeFile(base + ".json", text.data(), text.size());
  }

  const TargetProfile& target_;
  const CodegenOptions& opts_;
  llvm::LLVMContext ctx_;
  std::unique_ptr<llvm::Module> lib_;
  std::unique_ptr<llvm::TargetMachine> tm_;
  bool softHalf_ = false;  // the target has no F16C: half conversions become library calls
};

}  // namespace

std::string llvmVersionString() { return LLVM_VERSION_STRING; }

// Bump when this file changes the code it generates for the same kernel library.
static constexpr int kCodegenScheme = 5;  // 3: F16C float16 conversions; 4: vector width attributes;
                                          // 5: source noinline kept

std::string codegenVersionTag() {
  static const std::string tag = [] {
    std::string bc = cache::sha256Hex(atc_kernels_bc_begin, (size_t)(atc_kernels_bc_end - atc_kernels_bc_begin));
    return std::string("atc ") + ATC_VERSION + "; codegen " + std::to_string(kCodegenScheme) + "; llvm " +
           LLVM_VERSION_STRING + "; kernels " + bc.substr(0, 16);
  }();
  return tag;
}

std::string kernelCacheKey(const TargetProfile& target, const KernelInstance& ki, const CodegenOptions& opts) {
  std::string d = "atc-kernel/1\n" + codegenVersionTag() + "\ntriple=" + target.triple + "\ncpu=" + target.cpu +
                  "\nfeatures=" + target.features + "\nvector_bits=" + std::to_string(target.vectorBits) + "\nopt=" + std::to_string(opts.optLevel) +
                  "\nkernel=" + ki.kernel;
  auto ints = [&d](const char* name, const std::vector<int64_t>& v) {
    d += std::string("\n") + name + "=";
    for (size_t i = 0; i < v.size(); ++i) d += (i ? "," : "") + std::to_string(v[i]);
  };
  ints("params", ki.params);
  if (ki.generic) {  // the params read at run time (a range build)
    d += "\nruntime_params=";
    for (uint8_t r : ki.runtimeParams) d += r ? '1' : '0';
  }
  if (ki.boundsCheck) ints("bounds_check", ki.bufBytes);
  return cache::sha256Hex(d);
}

std::vector<uint8_t> compileKernels(const TargetProfile& target,
                                    const std::vector<KernelInstance>& instancesIn,
                                    const CodegenOptions& opts) {
  initLlvmOnce();
  std::vector<size_t> order(instancesIn.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return instancesIn[a].symbol < instancesIn[b].symbol; });
  for (size_t i = 1; i < order.size(); ++i)
    if (instancesIn[order[i]].symbol == instancesIn[order[i - 1]].symbol)
      cgError("duplicate kernel symbol " + instancesIn[order[i]].symbol);
  if (order.empty()) {
    if (opts.hitsOut) opts.hitsOut->clear();
    return {};
  }

  // Unique kernels by content key, in symbol order (deterministic whatever the workers).
  struct Unique {
    std::string key, entry;
    const KernelInstance* ki;
    bool recompile = false;  // named by op_debug_list: compiled, not looked up or stored
    bool hit = false;
    std::vector<uint8_t> obj;
  };
  std::vector<Unique> uniq;
  std::map<std::string, size_t> byKey;
  std::vector<size_t> uniqOf(instancesIn.size());
  std::vector<std::pair<std::string, std::string>> aliases;  // instance symbol -> entry symbol
  for (size_t i : order) {
    const KernelInstance& ki = instancesIn[i];
    std::string key = kernelCacheKey(target, ki, opts);
    auto it = byKey.find(key);
    if (it == byKey.end()) {
      it = byKey.emplace(key, uniq.size()).first;
      uniq.push_back({key, "atck_e_" + key, &ki});
    }
    Unique& u = uniq[it->second];
    for (size_t n = 0; n < ki.nodes.size(); ++n)
      if (cache::debugListMatches(opts.cache.recompile, ki.nodes[n], n < ki.opTypes.size() ? ki.opTypes[n] : ""))
        u.recompile = true;
    uniqOf[i] = it->second;
    aliases.push_back({ki.symbol, u.entry});
  }

  // Cache lookups.
  const cache::CacheSettings& cs = opts.cache;
  std::unique_ptr<cache::KernelCache> kc;
  if (cs.mode != cache::CacheMode::Disable && !cs.bypassAll)
    kc = std::make_unique<cache::KernelCache>(cs, target.name, codegenVersionTag());
  std::vector<size_t> pending;
  size_t hits = 0, done = 0;
  for (size_t u = 0; u < uniq.size(); ++u) {
    if (kc && kc->usable() && !uniq[u].recompile && kc->load(uniq[u].key, uniq[u].obj)) {
      uniq[u].hit = true;
      ++hits;
    } else {
      pending.push_back(u);
    }
  }
  std::mutex progMu;
  done = hits;
  if (opts.progress) opts.progress(done, uniq.size(), hits);

  // Workers: CodegenOptions.workers, else $TE_PARALLEL_COMPILER, else the hardware threads;
  // capped by $MAX_COMPILE_CORE_NUMBER (ATC's knobs for parallel kernel compilation).
  auto envInt = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : 0;
  };
  int workers = opts.workers > 0 ? opts.workers : envInt("TE_PARALLEL_COMPILER");
  if (workers <= 0) workers = (int)std::max(1u, std::thread::hardware_concurrency());
  if (envInt("MAX_COMPILE_CORE_NUMBER") > 0) workers = std::min(workers, envInt("MAX_COMPILE_CORE_NUMBER"));
  workers = std::max(1, std::min<int>(workers, (int)pending.size()));
  std::atomic<size_t> next{0};
  std::mutex errMu;
  std::exception_ptr firstErr;
  size_t firstErrIdx = SIZE_MAX;
  auto work = [&] {
    try {
      Worker w(target, opts);
      for (;;) {
        size_t p = next.fetch_add(1);
        if (p >= pending.size()) break;
        Unique& u = uniq[pending[p]];
        try {
          u.obj = w.compile(*u.ki, u.entry);
          if (kc && !u.recompile) kc->store(u.key, u.obj);
          std::lock_guard<std::mutex> g(progMu);
          ++done;
          if (opts.progress) opts.progress(done, uniq.size(), hits);
        } catch (...) {
          std::lock_guard<std::mutex> g(errMu);
          if (p < firstErrIdx) firstErrIdx = p, firstErr = std::current_exception();
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> g(errMu);
      if (!firstErr) firstErr = std::current_exception();
      next.store(pending.size());
    }
  };
  if (pending.empty()) {
  } else if (workers == 1) {
    work();
  } else {
    std::vector<std::thread> ts;
    for (int i = 0; i < workers; ++i) ts.emplace_back(work);
    for (auto& t : ts) t.join();
  }
  if (firstErr) std::rethrow_exception(firstErr);
  if (kc) kc->age();
  if (opts.hitsOut) {
    opts.hitsOut->assign(instancesIn.size(), 0);
    for (size_t i = 0; i < instancesIn.size(); ++i) (*opts.hitsOut)[i] = uniq[uniqOf[i]].hit ? 1 : 0;
  }

  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::vector<uint8_t>> objs;
  for (auto& u : uniq) objs.push_back(std::move(u.obj));
  std::vector<uint8_t> so = linkSharedObject(objs, aliases);
  if (timingEnabled())
    llvm::errs() << "[codegen] link: "
                 << llvm::format("%.1f", std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count())
                 << " ms\n";
  return so;
}

}  // namespace atc
