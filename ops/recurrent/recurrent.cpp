// RNN, GRU and LSTM (ONNX opsets 7-22; layout from opset 14): kernel "rnn"
// (kernels/lib/rnn.cpp, params in rnn_params.h). float32; forward, reverse and bidirectional;
// activations with their alpha/beta, clip, sequence_lens, initial states, LSTM peepholes and
// input_forget, GRU linear_before_reset.
// Inputs: X, W, R, [B], [sequence_lens], [initial_h], (LSTM) [initial_c], [P].
// Outputs: [Y], [Y_h], (LSTM) [Y_c].
#include <algorithm>
#include <cctype>

#include "ir/op_registry.h"
#include "kernels/lib/rnn_params.h"

namespace atc {
namespace {

struct RnnDims {
  int64_t kind = RNN_SIMPLE, G = 1, S = 0, B = 0, I = 0, H = 0, D = 1, layout = 0;
  bool reverse = false;
};

int64_t gatesOf(int64_t kind) { return kind == RNN_LSTM ? 4 : kind == RNN_GRU ? 3 : 1; }
int64_t actSlots(int64_t kind) { return kind == RNN_LSTM ? 3 : kind == RNN_GRU ? 2 : 1; }

void checkInput(const Node& n, size_t i, const char* what, const Shape& want) {
  const Value* v = n.input(i);
  if (!v) return;
  if (v->type.dtype != (i == 4 ? DType::I32 : DType::F32))
    opError(n, std::string(what) + (i == 4 ? " must be int32" : " must be float32"));
  if (v->type.shapeKnown && v->type.shape != want) {
    std::string s;
    for (int64_t d : want) s += (s.empty() ? "" : ",") + std::to_string(d);
    opError(n, std::string(what) + " must have shape [" + s + "]");
  }
}

RnnDims rnnDims(const Node& n, int64_t kind) {
  RnnDims d;
  d.kind = kind;
  d.G = gatesOf(kind);
  const TensorType& x = n.inputs[0]->type;
  const TensorType& r = n.inputs[2]->type;
  if (x.dtype != DType::F32) opError(n, "X must be float32");
  if (!x.shapeKnown || x.rank() != 3) opError(n, "X must be 3-D");
  if (!r.shapeKnown || r.rank() != 3) opError(n, "R must be 3-D [num_directions, gates*hidden, hidden]");
  d.layout = n.attrInt("layout", 0);
  if (d.layout != 0 && d.layout != 1) opError(n, "layout must be 0 or 1");
  d.S = d.layout ? x.shape[1] : x.shape[0];
  d.B = d.layout ? x.shape[0] : x.shape[1];
  d.I = x.shape[2];
  const std::string dir = n.attrString("direction", "forward");
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    opError(n, "direction must be forward, reverse or bidirectional, not " + dir);
  d.D = dir == "bidirectional" ? 2 : 1;
  d.reverse = dir == "reverse";
  d.H = r.shape[2];
  if (n.hasAttr("hidden_size") && n.attrInt("hidden_size", 0) != d.H)
    opError(n, "hidden_size differs from R's last dimension");
  if (d.H <= 0 || d.I <= 0) opError(n, "hidden and input sizes must be positive");
  checkInput(n, 1, "W", {d.D, d.G * d.H, d.I});
  checkInput(n, 2, "R", {d.D, d.G * d.H, d.H});
  checkInput(n, 3, "B", {d.D, 2 * d.G * d.H});
  checkInput(n, 4, "sequence_lens", {d.B});
  const Shape state = d.layout ? Shape{d.B, d.D, d.H} : Shape{d.D, d.B, d.H};
  checkInput(n, 5, "initial_h", state);
  if (kind == RNN_LSTM) {
    checkInput(n, 6, "initial_c", state);
    checkInput(n, 7, "P", {d.D, 3 * d.H});
  }
  return d;
}

void inferRnn(Node& n, int64_t kind) {
  RnnDims d = rnnDims(n, kind);
  const Shape y = d.layout ? Shape{d.B, d.S, d.D, d.H} : Shape{d.S, d.D, d.B, d.H};
  const Shape st = d.layout ? Shape{d.B, d.D, d.H} : Shape{d.D, d.B, d.H};
  for (size_t i = 0; i < n.outputs.size(); ++i) n.outputs[i]->type = TensorType(DType::F32, i == 0 ? y : st);
}

// ONNX activation names -> codes, and whether they take alpha / beta (with their defaults).
struct ActInfo {
  const char* name;
  int64_t code;
  bool alpha, beta;
  double a, b;
};
const ActInfo kActs[] = {
    {"relu", RA_RELU, false, false, 0, 0},         {"tanh", RA_TANH, false, false, 0, 0},
    {"sigmoid", RA_SIGMOID, false, false, 0, 0},   {"affine", RA_AFFINE, true, true, 1.0, 0.0},
    {"leakyrelu", RA_LEAKYRELU, true, false, 0.01, 0}, {"thresholdedrelu", RA_THRESHOLDEDRELU, true, false, 1.0, 0},
    {"scaledtanh", RA_SCALEDTANH, true, true, 1.0, 1.0}, {"hardsigmoid", RA_HARDSIGMOID, true, true, 0.2, 0.5},
    {"elu", RA_ELU, true, false, 1.0, 0},          {"softsign", RA_SOFTSIGN, false, false, 0, 0},
    {"softplus", RA_SOFTPLUS, false, false, 0, 0},
};

// Fills P[RP_ACT..] from activations / activation_alpha / activation_beta: the alpha and beta
// lists are consumed in order by the activations that take them (as ONNX Runtime does).
void setActivations(const Node& n, const RnnDims& d, std::vector<int64_t>& P) {
  const int64_t slots = actSlots(d.kind);
  std::vector<std::string> acts;
  if (n.hasAttr("activations")) {
    const auto* list = std::get_if<std::vector<std::string>>(&n.attrs.at("activations"));
    if (!list) opError(n, "activations must be a list of strings");
    acts = *list;
  } else {
    const std::vector<std::string> def = d.kind == RNN_LSTM ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                         : d.kind == RNN_GRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                             : std::vector<std::string>{"Tanh"};
    for (int64_t k = 0; k < d.D; ++k) acts.insert(acts.end(), def.begin(), def.end());
  }
  if ((int64_t)acts.size() != slots * d.D)
    opError(n, "activations must list " + std::to_string(slots * d.D) + " functions (" + std::to_string(slots) +
                   " per direction)");
  const std::vector<double> alphas = n.attrFloats("activation_alpha"), betas = n.attrFloats("activation_beta");
  size_t ai = 0, bi = 0;
  for (int64_t dir = 0; dir < d.D; ++dir)
    for (int64_t k = 0; k < slots; ++k) {
      std::string name = acts[dir * slots + k];
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return (char)std::tolower(ch); });
      const ActInfo* info = nullptr;
      for (const ActInfo& a : kActs)
        if (name == a.name) info = &a;
      if (!info) opError(n, "unsupported activation " + acts[dir * slots + k]);
      double a = info->a, b = info->b;
      if (info->alpha && ai < alphas.size()) a = alphas[ai++];
      if (info->beta && bi < betas.size()) b = betas[bi++];
      P[RP_ACT + dir * 3 + k] = info->code;
      P[RP_ALPHA + dir * 3 + k] = paramFromDouble(a);
      P[RP_BETA + dir * 3 + k] = paramFromDouble(b);
    }
}

KernelCall lowerRnn(LowerCtx& c, int64_t kind) {
  const Node& n = c.node;
  RnnDims d = rnnDims(n, kind);
  std::vector<int64_t> P(RP_COUNT, 0);
  P[RP_KIND] = kind;
  P[RP_SEQ] = d.S; P[RP_BATCH] = d.B; P[RP_I] = d.I; P[RP_H] = d.H; P[RP_NDIR] = d.D;
  P[RP_REVERSE] = d.reverse ? 1 : 0;
  P[RP_LAYOUT] = d.layout;
  const double clip = n.attrFloat("clip", 0.0);
  if (n.hasAttr("clip") && !(clip > 0.0)) opError(n, "clip must be positive");
  P[RP_CLIP] = paramFromDouble(clip);
  P[RP_INPUT_FORGET] = kind == RNN_LSTM ? n.attrInt("input_forget", 0) != 0 : 0;
  P[RP_LBR] = kind == RNN_GRU ? n.attrInt("linear_before_reset", 0) != 0 : 0;
  auto in = [&](size_t i) { return n.input(i) ? (int64_t)i : -1; };
  P[RP_XBUF] = 0; P[RP_WBUF] = 1; P[RP_RBUF] = 2;
  P[RP_BBUF] = in(3); P[RP_LBUF] = in(4); P[RP_IHBUF] = in(5);
  P[RP_ICBUF] = kind == RNN_LSTM ? in(6) : -1;
  P[RP_PBUF] = kind == RNN_LSTM ? in(7) : -1;
  const int64_t nin = (int64_t)n.inputs.size(), nout = (int64_t)n.outputs.size();
  P[RP_YBUF] = nout > 0 ? nin : -1;
  P[RP_YHBUF] = nout > 1 ? nin + 1 : -1;
  P[RP_YCBUF] = kind == RNN_LSTM && nout > 2 ? nin + 2 : -1;
  P[RP_WSBUF] = nin + nout;
  P[RP_SLOT] = ((3 + d.G) * d.H + 15) / 16 * 16;
  setActivations(n, d, P);
  KernelCall kc;
  kc.kernel = "rnn";
  kc.params = P;
  kc.workspaceBytes = d.D * d.B * P[RP_SLOT] * 4 + 64;
  return kc;
}

OpDef makeRnn(const char* type, int64_t kind) {
  OpDef d;
  d.type = type;
  d.minInputs = 3;
  d.maxInputs = kind == RNN_LSTM ? 8 : 6;
  d.minOutputs = 0;
  d.maxOutputs = kind == RNN_LSTM ? 3 : 2;
  d.infer = [kind](Graph&, Node& n) { inferRnn(n, kind); };
  d.lower = [kind](LowerCtx& c) { return lowerRnn(c, kind); };
  return d;
}

ATC_REGISTER_OP(makeRnn("RNN", RNN_SIMPLE));
ATC_REGISTER_OP(makeRnn("GRU", RNN_GRU));
ATC_REGISTER_OP(makeRnn("LSTM", RNN_LSTM));

}  // namespace
}  // namespace atc
