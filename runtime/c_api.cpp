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
// f() under the C API's error convention: 0, or -1 with atc_last_error set.
template <class F>
int guarded(atc_model* m, F f) {
  if (!m) {
    g_lastError = "null model";
    return -1;
  }
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    g_lastError = e.what();
    return -1;
  }
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

int atc_model_output_shape_from_data(const atc_model* m, size_t i) {
  auto* d = desc(m, i, false);
  return d && d->shapeFromData ? 1 : 0;
}
int atc_model_output_run_sized(const atc_model* m, size_t i) {
  auto* d = desc(m, i, false);
  return d && d->runSized ? 1 : 0;
}
int atc_model_output_is_sequence(const atc_model* m, size_t i) {
  auto* d = desc(m, i, false);
  return d && d->sequence ? 1 : 0;
}
namespace {
const atc::rt::StepTensor* seqTensor(const atc_model* m, size_t i, size_t k) {
  if (!atc_model_output_is_sequence(m, i)) return nullptr;
  const auto& l = m->m->sequenceOutput(i);
  return k < l.size() ? &l[k] : nullptr;
}
}  // namespace
size_t atc_model_sequence_length(const atc_model* m, size_t i) {
  return atc_model_output_is_sequence(m, i) ? m->m->sequenceOutput(i).size() : 0;
}
const char* atc_model_sequence_dtype(const atc_model* m, size_t i, size_t k) {
  auto* t = seqTensor(m, i, k);
  return t ? t->desc.dtype.c_str() : nullptr;
}
size_t atc_model_sequence_rank(const atc_model* m, size_t i, size_t k) {
  auto* t = seqTensor(m, i, k);
  return t ? t->desc.shape.size() : 0;
}
const int64_t* atc_model_sequence_dims(const atc_model* m, size_t i, size_t k) {
  auto* t = seqTensor(m, i, k);
  return t ? t->desc.shape.data() : nullptr;
}
size_t atc_model_sequence_bytes(const atc_model* m, size_t i, size_t k) {
  auto* t = seqTensor(m, i, k);
  return t ? (size_t)t->desc.bytes : 0;
}
const void* atc_model_sequence_data(const atc_model* m, size_t i, size_t k) {
  auto* t = seqTensor(m, i, k);
  return t ? t->data : nullptr;
}
const void* atc_model_output_data(const atc_model* m, size_t i) {
  if (!m || i >= m->m->outputs().size()) return nullptr;
  return m->m->outputData(i);
}
const int64_t* atc_model_output_last_dims(const atc_model* m, size_t i) {
  if (!m || i >= m->m->lastOutputs().size()) return nullptr;
  return m->m->lastOutputs()[i].shape.data();
}
size_t atc_model_output_last_bytes(const atc_model* m, size_t i) {
  if (!m || i >= m->m->lastOutputs().size()) return 0;
  return (size_t)m->m->lastOutputs()[i].bytes;
}

const char* atc_model_dynamic_kind(const atc_model* m) { return m ? m->m->dynamicKind().c_str() : nullptr; }
size_t atc_model_num_gears(const atc_model* m) { return m ? m->m->gears().size() : 0; }
size_t atc_model_current_gear(const atc_model* m) { return m ? m->m->gear() : 0; }
const int64_t* atc_model_gear_dims(const atc_model* m, size_t g, size_t* count) {
  if (count) *count = 0;
  if (!m || g >= m->m->gears().size()) return nullptr;
  const auto& d = m->m->gears()[g].dims;
  if (count) *count = d.size();
  return d.data();
}

size_t atc_model_num_input_ranges(const atc_model* m) { return m ? m->m->inputRanges().size() : 0; }
int atc_model_input_range(const atc_model* m, size_t r, const char** name, size_t* rank, const int64_t** min,
                          const int64_t** max) {
  if (!m || r >= m->m->inputRanges().size()) return -1;
  const atc::rt::InputRange& x = m->m->inputRanges()[r];
  if (name) *name = x.name.c_str();
  if (rank) *rank = x.min.size();
  if (min) *min = x.min.data();
  if (max) *max = x.max.data();
  return 0;
}

int atc_model_set_gear(atc_model* m, size_t g) {
  return guarded(m, [&] { m->m->setGear(g); });
}
int atc_model_select_gear(atc_model* m, const int64_t* dims, size_t count) {
  return guarded(m, [&] {
    std::vector<int64_t> d(dims, dims + (dims ? count : 0));
    m->m->setGear(m->m->findGearByDims(d));
  });
}
int atc_model_set_input_shapes(atc_model* m, const size_t* ranks, const int64_t* const* shapes) {
  return guarded(m, [&] {
    if (!ranks || !shapes) throw std::runtime_error("null ranks or shapes");
    std::vector<std::vector<int64_t>> s;
    for (size_t i = 0; i < m->m->inputs().size(); ++i) s.emplace_back(shapes[i], shapes[i] + ranks[i]);
    m->m->setGear(m->m->findGear(s));
  });
}

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
