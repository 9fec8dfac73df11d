#include "runtime/fault_guard.h"

#include <setjmp.h>
#include <signal.h>
#include <ucontext.h>

#include <cstring>
#include <mutex>

#include "kernels/lib/kernel_abi.h"

namespace atc {
namespace rt {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
struct sigaction gOld[4];

struct GuardFrame {
  sigjmp_buf jb;
  FaultRecord* rec;
};
thread_local GuardFrame* tlsFrame = nullptr;

int slotOf(int sig) {
  for (int i = 0; i < 4; ++i)
    if (kSignals[i] == sig) return i;
  return -1;
}

// A failed bounds check of an `oom` build: ud2 with the magic in r11 (kernel_abi.h).
void readBoundsTrap(FaultRecord* rec, void* uc) {
#if defined(__x86_64__) && defined(__linux__)
  const greg_t* r = static_cast<ucontext_t*>(uc)->uc_mcontext.gregs;
  const uint8_t* ip = reinterpret_cast<const uint8_t*>(r[REG_RIP]);
  if ((uint64_t)r[REG_R11] != ATCK_OOB_TRAP_MAGIC || ip[0] != 0x0f || ip[1] != 0x0b) return;
  rec->oobSlot.store((int32_t)(uint32_t)r[REG_RDI]);
  rec->oobStore.store(((uint64_t)r[REG_RDI] >> 32) & 1);
  rec->oobOffset.store((int64_t)r[REG_RSI]);
  rec->oobBytes.store((int64_t)r[REG_RDX]);
  rec->oobSize.store((int64_t)r[REG_RCX]);
  rec->oob.store(true);
#else
  (void)rec, (void)uc;
#endif
}

void onFault(int sig, siginfo_t* si, void* uc) {
  GuardFrame* f = tlsFrame;
  if (f) {
    int expected = 0;
    if (f->rec->sig.compare_exchange_strong(expected, sig)) {
      f->rec->addr.store((uintptr_t)si->si_addr);
      if (sig == SIGILL && uc) readBoundsTrap(f->rec, uc);
    }
    siglongjmp(f->jb, 1);
  }
  // Not ours: hand it to the previous disposition (a sanitizer's handler, or the default,
  // which kills the process when the faulting instruction runs again).
  int k = slotOf(sig);
  const struct sigaction& old = gOld[k < 0 ? 0 : k];
  if ((old.sa_flags & SA_SIGINFO) && old.sa_sigaction) {
    old.sa_sigaction(sig, si, uc);
  } else if (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
  } else {
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
  }
}

void installOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = &onFault;
    // NODEFER: the signal stays unblocked after the jump (sigsetjmp does not save the mask,
    // which keeps a guarded call free of system calls).
    sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 4; ++i) sigaction(kSignals[i], &sa, &gOld[i]);
  });
}

}  // namespace

bool callGuarded(void (*fn)(void*, int64_t, int64_t), void* ctx, int64_t b, int64_t e, FaultRecord* rec) {
  installOnce();
  GuardFrame frame;
  frame.rec = rec;
  GuardFrame* volatile prev = tlsFrame;
  if (sigsetjmp(frame.jb, 0) != 0) {
    tlsFrame = prev;
    return false;
  }
  tlsFrame = &frame;
  fn(ctx, b, e);
  tlsFrame = prev;
  return true;
}

const char* faultSignalName(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV (invalid memory access)";
    case SIGBUS: return "SIGBUS (bus error)";
    case SIGFPE: return "SIGFPE (arithmetic exception, e.g. an integer division by zero)";
    case SIGILL: return "SIGILL (an instruction this CPU does not have)";
    default: return "a signal";
  }
}

}  // namespace rt
}  // namespace atc
