// The params of a generic kernel instance (a shape-range build, docs/dynamic-shapes.md,
// "Ranges"): the entry hands the kernel a placeholder for its params; once everything the
// kernel calls is inlined, every load of a param it agrees on across the range becomes that
// constant (so the code paths it chooses fold away as in a specialised instance) and every other
// use reads the plan's params, whose address the runtime puts in bufs[-1].
#pragma once
#include <cstdint>
#include <vector>

namespace llvm {
class Function;
class IRBuilderBase;
class Module;
class TargetMachine;
class Value;
}  // namespace llvm

namespace atc {

// In an entry or trampoline whose first argument is the kernel's bufs: the params pointer to
// pass to the kernel's task and ntasks functions.
llvm::Value* genericParamsPlaceholder(llvm::IRBuilderBase& b, llvm::Module& m, llvm::Value* bufs);

// Inlines what the entries call (functions the source marks noinline stay out of line),
// replaces the loads of baked params (runtime[k] == 0) by params[k] and every other use of the
// placeholder by the run-time params (loaded from bufs[-1]). Before the optimisation pipeline.
void bakeGenericParams(llvm::Module& m, llvm::TargetMachine* tm, const std::vector<int64_t>& params,
                       const std::vector<uint8_t>& runtime, const std::vector<llvm::Function*>& entries);

}  // namespace atc
