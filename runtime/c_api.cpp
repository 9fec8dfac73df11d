// C API over atc::rt::Model (runtime/atc_runtime_c.h).
#include <string>
#include <vector>

#include "runtime/atc_runtime.h"
#include "runtime/atc_runtime_c.h"

struct atc_model {
  std::unique_ptr<atc::rt::Model> m;
};

namespace {
thread_local std::string g_lastError;

const atc::rt::TensorDesc* desc(const atc_model* m, size_t i, bool in) {
  if (!m) return nullptr;
  auto& v = in ? m->m->inputs() : m->m->outputs();
  return i < v.size() ? &v[i] : nullptr;
}
}  // namespace

extern "C" {

atc_model* atc_model_load(const char* path, int threads) {
  try {
    auto m = atc::rt::Model::load(path ? path : "", threads);
    return new atc_model{std::move(m)};
  } catch (const std::exception& e) {
    g_lastError = e.what();
    return nullptr;
  }
}
atc_model* atc_model_load_verified(const char* path, int threads, const char* verify_key_path) {
  try {
    if (!verify_key_path || !*verify_key_path) throw std::runtime_error("no verify key given");
    atc::rt::LoadOptions o;
    o.threads = threads;
    o.verifyKey = verify_key_path;
    auto m = atc::rt::Model::load(path ? path : "", o);
    return new atc_model{std::move(m)};
  } catch (const std::exception& e) {
    g_lastError = e.what();
    return nullptr;
  }
}
void atc_model_free(atc_model* m) { delete m; }
const char* atc_last_error(void) { return g_lastError.c_str(); }

size_t atc_model_num_inputs(const atc_model* m) { return m ? m->m->inputs().size() : 0; }
size_t atc_model_num_outputs(const atc_model* m) { return m ? m->m->outputs().size() : 0; }

#define ATC_DESC_GETTERS(KIND, IN)                                                          \
  const char* atc_model_##KIND##_name(const atc_model* m, size_t i) {                       \
    auto* d = desc(m, i, IN);                                                               \
    return d ? d->name.c_str() : nullptr;                                                   \
  }                                                                                         \
  const char* atc_model_##KIND##_dtype(const atc_model* m, size_t i) {                      \
    auto* d = desc(m, i, IN);                                                               \
    return d ? d->dtype.c_str() : nullptr;                                                  \
  }                                                                                         \
  size_t atc_model_##KIND##_rank(const atc_model* m, size_t i) {                            \
    auto* d = desc(m, i, IN);                                                               \
    return d ? d->shape.size() : 0;                                                         \
  }                                                                                         \
  const int64_t* atc_model_##KIND##_dims(const atc_model* m, size_t i) {                    \
    auto* d = desc(m, i, IN);                                                               \
    return d ? d->shape.data() : nullptr;                                                   \
  }                                                                                         \
  size_t atc_model_##KIND##_bytes(const atc_model* m, size_t i) {                           \
    auto* d = desc(m, i, IN);                                                               \
    return d ? (size_t)d->bytes : 0;                                                        \
  }
ATC_DESC_GETTERS(input, true)
ATC_DESC_GETTERS(output, false)

int atc_model_run(atc_model* m, const void* const* inputs, void* const* outputs) {
  if (!m) {
    g_lastError = "null model";
    return -1;
  }
  try {
    std::vector<const void*> in(inputs, inputs + m->m->inputs().size());
    std::vector<void*> out(outputs, outputs + m->m->outputs().size());
    m->m->run(in, out);
    return 0;
  } catch (const std::exception& e) {
    g_lastError = e.what();
    return -1;
  }
}

}  // extern "C"
