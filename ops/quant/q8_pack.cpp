// Compile-time packing of the int8 kernels' weights and epilogue words (q8_pack.h).
#include "ops/quant/q8_pack.h"

#include <algorithm>

#include "ops/quant/quant_util.h"

namespace atc {

TensorPtr packQ8Weights(const Tensor& w, int64_t OC, int64_t C, int64_t KH, int64_t KW, int64_t OCP, int64_t C4) {
  const int64_t KQ = C4 * KH * KW;
  auto pk = std::make_shared<Tensor>(TensorType(DType::I8, {OCP * KQ * 4}));
  int8_t* dst = pk->as<int8_t>();
  std::fill(dst, dst + OCP * KQ * 4, (int8_t)0);
  const int8_t* src = w.as<int8_t>();
  for (int64_t oc = 0; oc < OC; ++oc)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t kh = 0; kh < KH; ++kh)
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t kq = ((c / 4) * KH + kh) * KW + kw;
          dst[(((oc / 16) * KQ + kq) * 16 + oc % 16) * 4 + c % 4] = src[((oc * C + c) * KH + kh) * KW + kw];
        }
  return pk;
}

TensorPtr widenQ8Weights(const Tensor& packed) {
  const int64_t quads = packed.type.numel() / 64;  // (panel, k-quad) pairs of 16 x 4 bytes
  auto wide = std::make_shared<Tensor>(TensorType(DType::I8, {quads * 128}));
  const int8_t* src = packed.as<int8_t>();
  int16_t* dst = wide->as<int16_t>();
  for (int64_t q = 0; q < quads; ++q)
    for (int64_t o = 0; o < 16; ++o)
      for (int64_t h = 0; h < 2; ++h) {  // h 0: bytes 0 and 2 (even word), 1: bytes 1 and 3
        const int8_t* b = src + (q * 16 + o) * 4 + h;
        int16_t* d = dst + ((q * 2 + h) * 16 + o) * 2;
        d[0] = b[0];
        d[1] = b[2];
      }
  return wide;
}

TensorPtr q8Aux(const Node& n, int64_t OC, int64_t OCP, int64_t K, int32_t zpFlipped) {
  auto aux = std::make_shared<Tensor>(TensorType(DType::F32, {3 * OCP}));
  float* f = aux->as<float>();
  std::fill(f, f + 3 * OCP, 0.0f);
  int32_t* comp = reinterpret_cast<int32_t*>(f + 2 * OCP);
  const int8_t* w = n.inputs[3]->constant->as<int8_t>();
  for (int64_t oc = 0; oc < OC; ++oc) {
    f[oc] = (float)n.inputs[4]->constant->floatAt(oc);
    f[OCP + oc] = n.input(5) ? (float)n.input(5)->constant->floatAt(oc) : 0.0f;
    int64_t s = 0;
    for (int64_t k = 0; k < K; ++k) s += w[oc * K + k];
    comp[oc] = (int32_t)(s * zpFlipped);
    // A quantized output without residual (out_quantize): the requantization folded, so
    // that the kernel computes v = acc * mult' + bias' (qconv8_common.h q8_requant16).
    if (n.attrInt("out_quantize", 0) != 0 && !n.input(6)) {
      const float os = (float)n.attrFloat("out_scale", 1.0), ozp = (float)n.attrInt("out_zero_point", 0);
      const float m = f[oc];
      f[oc] = m / os;
      f[OCP + oc] = (f[OCP + oc] - (float)comp[oc] * m) / os + ozp;
    }
  }
  return aux;
}

void checkQ8Operands(const Node& n, int64_t OC, bool packed, const char* per) {
  const DType xdt = n.inputs[0]->type.dtype;
  for (size_t i : {(size_t)1, (size_t)2})
    if (!n.input(i) || n.inputs[i]->type.numel() != 1) opError(n, "x_scale and x_zero_point must be scalars");
  if (n.inputs[1]->type.dtype != DType::F32) opError(n, "x_scale must be float32");
  if (!isQuant8(n.inputs[2]->type.dtype) || (isQuant8(xdt) && n.inputs[2]->type.dtype != xdt))
    opError(n, "x_zero_point must be uint8 or int8 (x's dtype when x is quantized)");
  for (size_t i : {(size_t)4, (size_t)5})
    if (n.input(i) && !(packed && i == 4) && (n.input(i)->type.dtype != DType::F32 || n.input(i)->type.numel() != OC))
      opError(n, std::string("mult and B must be float32 with one value per ") + per);
}

}  // namespace atc
