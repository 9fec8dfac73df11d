/* C API of the runtime. Functions returning int return 0 on success and -1 on error;
 * atc_last_error() then describes the error of the calling thread. */
#ifndef ATC_RUNTIME_C_H
#define ATC_RUNTIME_C_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct atc_model atc_model;

/* threads: 0 = number of cores. Returns NULL on error. */
atc_model* atc_model_load(const char* path, int threads);
/* As atc_model_load, but refuses (NULL, atc_last_error says why) a model that is not signed
 * with the Ed25519 key whose public key (PEM) is in verify_key_path, or that was changed after
 * signing: checked before any of the model's code is mapped. */
atc_model* atc_model_load_verified(const char* path, int threads, const char* verify_key_path);
void atc_model_free(atc_model* m);
const char* atc_last_error(void);

size_t atc_model_num_inputs(const atc_model* m);
size_t atc_model_num_outputs(const atc_model* m);
/* Name, dtype name ("float32"...), rank, dims and byte size of input/output i (NULL/0 if out of range). */
const char* atc_model_input_name(const atc_model* m, size_t i);
const char* atc_model_input_dtype(const atc_model* m, size_t i);
size_t atc_model_input_rank(const atc_model* m, size_t i);
const int64_t* atc_model_input_dims(const atc_model* m, size_t i);
size_t atc_model_input_bytes(const atc_model* m, size_t i);
const char* atc_model_output_name(const atc_model* m, size_t i);
const char* atc_model_output_dtype(const atc_model* m, size_t i);
size_t atc_model_output_rank(const atc_model* m, size_t i);
const int64_t* atc_model_output_dims(const atc_model* m, size_t i);
size_t atc_model_output_bytes(const atc_model* m, size_t i);
/* Outputs whose shape depends on input values (NonZero, TopK with a run-time k...): 1 when
 * output i is one; its dims and bytes above are then an upper bound (the buffer to provide),
 * and the last run's actual dims (rank as above) and bytes are these (the data fills the
 * first bytes of the buffer). For other outputs they equal the getters above. */
int atc_model_output_shape_from_data(const atc_model* m, size_t i);
const int64_t* atc_model_output_last_dims(const atc_model* m, size_t i);
size_t atc_model_output_last_bytes(const atc_model* m, size_t i);
/* Outputs sized by each run, with no bound (Expand, Resize, OneHot... with a run-time shape):
 * 1 when output i is one; its dims above hold -1 where a run decides and its bytes are 0. Pass
 * NULL as its pointer to atc_model_run and read it with atc_model_output_data (the last run's
 * data, last_dims / last_bytes above, valid until the next run). atc_model_output_data works
 * for every output (NULL when i is out of range). */
int atc_model_output_run_sized(const atc_model* m, size_t i);
const void* atc_model_output_data(const atc_model* m, size_t i);
/* Sequences made at run time (docs/frontend-onnx.md, "Sequences at run time"): 1 when output
 * i is one (its own data is an int64 handle). After a run: the number of tensors it held, and
 * tensor k's dtype name, rank, dims, bytes and data (NULL / 0 when out of range), valid until
 * the next run. */
int atc_model_output_is_sequence(const atc_model* m, size_t i);
size_t atc_model_sequence_length(const atc_model* m, size_t i);
const char* atc_model_sequence_dtype(const atc_model* m, size_t i, size_t k);
size_t atc_model_sequence_rank(const atc_model* m, size_t i, size_t k);
const int64_t* atc_model_sequence_dims(const atc_model* m, size_t i, size_t k);
size_t atc_model_sequence_bytes(const atc_model* m, size_t i, size_t k);
const void* atc_model_sequence_data(const atc_model* m, size_t i, size_t k);

/* Gears of a dynamic model (atc --dynamic_batch_size / --dynamic_image_size / --dynamic_dims,
 * docs/dynamic-shapes.md). A static model has one gear with no dims. The input and output
 * getters above describe the current gear (gear 0 after loading). */
/* "" for a static model, else "batch", "image_size" or "dims". */
const char* atc_model_dynamic_kind(const atc_model* m);
size_t atc_model_num_gears(const atc_model* m);
size_t atc_model_current_gear(const atc_model* m);
/* The values of gear g's dynamic dims; their count in *count (0 and NULL when g is out of
 * range, or for a static model's one gear, which has no dims). */
const int64_t* atc_model_gear_dims(const atc_model* m, size_t g, size_t* count);
/* A range build (kind "range": atc --input_shape="x:1,1~512"; every shape between an input's
 * lowest and highest one is a gear, chosen with atc_model_set_input_shapes): the number of
 * ranged inputs, and range r's input name, rank and lowest and highest dims. -1 when r is out
 * of range or the model has no ranges. */
size_t atc_model_num_input_ranges(const atc_model* m);
int atc_model_input_range(const atc_model* m, size_t r, const char** name, size_t* rank, const int64_t** min,
                          const int64_t** max);
/* Makes gear g current. -1 when out of range. */
int atc_model_set_gear(atc_model* m, size_t g);
/* Makes current the gear whose dims are dims[0..count) (a batch size: count 1; h, w: 2), or
 * whose inputs have the given shapes (ranks[i] dims in shapes[i], one per input). -1 when no
 * gear matches: atc_last_error() names every shape the model accepts, and the gear is kept. */
int atc_model_select_gear(atc_model* m, const int64_t* dims, size_t count);
int atc_model_set_input_shapes(atc_model* m, const size_t* ranks, const int64_t* const* shapes);

/* inputs[i]: atc_model_input_bytes(m, i) bytes; outputs[i]: atc_model_output_bytes(m, i) bytes,
 * or NULL (not copied: atc_model_output_data); NULL for a run-sized output. */
int atc_model_run(atc_model* m, const void* const* inputs, void* const* outputs);

#ifdef __cplusplus
}
#endif
#endif
