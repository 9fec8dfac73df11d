// Signed .om files: atc's signOm and the runtime's verify key (runtime/om_signature.h). An
// unsigned, altered, re-signed-by-another-key or stripped model is refused before its code
// is mapped; a signed model runs.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstdio>
#include <fstream>

#include "backend/om_builder.h"
#include "kernels/codegen/host_cpu.h"
#include "runtime/atc_runtime.h"
#include "runtime/om_format.h"
#include "runtime/om_signature.h"

using namespace atc;

namespace {

std::vector<uint8_t> buildReluModel() {
  Graph g;
  g.name = "signed";
  Value* x = g.newValue("x", TensorType(DType::F32, {2, 3}));
  g.inputs.push_back(x);
  auto w = std::make_shared<Tensor>(TensorType(DType::F32, {2, 3}));
  for (int i = 0; i < 6; ++i) w->as<float>()[i] = 0.5f * i;
  Value* c = g.newConstant("w", w);
  Value* s = g.newValue("s", TensorType(DType::F32, {2, 3}));
  Value* y = g.newValue("y", TensorType(DType::F32, {2, 3}));
  g.addNode("Add", "add", {x, c}, {s});
  g.addNode("Relu", "relu", {s}, {y});
  g.outputs = {y};
  BackendOptions o;
  o.cmdline = "test";
  return buildOm(g, o, loadHostTargetProfile("native"));
}

struct KeyPair {
  std::string priv, pub;
};

std::string bioText(BIO* b) {
  char* p = nullptr;
  long n = BIO_get_mem_data(b, &p);
  std::string s(p, (size_t)n);
  BIO_free(b);
  return s;
}

KeyPair newKey() {
  EVP_PKEY* k = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  EXPECT_NE(k, nullptr);
  BIO* a = BIO_new(BIO_s_mem());
  BIO* b = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(a, k, nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_bio_PUBKEY(b, k);
  EVP_PKEY_free(k);
  return {bioText(a), bioText(b)};
}

std::string writeTemp(const std::string& name, const std::string& text) {
  std::string p = ::testing::TempDir() + "/" + name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

rt::LoadOptions withKey(const std::string& pubPath) {
  rt::LoadOptions o;
  o.threads = 1;
  o.verifyKey = pubPath;
  return o;
}

void expectRefused(const std::vector<uint8_t>& om, const std::string& pubPath, const std::string& needle) {
  try {
    rt::Model::loadFromMemory(om.data(), om.size(), withKey(pubPath), "m.om");
    ADD_FAILURE() << "expected a refusal containing " << needle;
  } catch (const rt::RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_THROW(rt::Model::check(om.data(), om.size(), withKey(pubPath)), rt::RuntimeError);
}

}  // namespace

TEST(OmSignature, SignedModelRunsAndReportsItsSigner) {
  KeyPair k = newKey();
  std::string pub = writeTemp("sig_ok.pub.pem", k.pub);
  std::vector<uint8_t> plain = buildReluModel();
  std::vector<uint8_t> sig = om::signOm(plain, k.priv, "key");
  EXPECT_EQ(sig, om::signOm(plain, k.priv, "key"));  // Ed25519 is deterministic
  EXPECT_EQ(sig, om::signOm(sig, k.priv, "key"));    // re-signing replaces the signature
  om::OmView v = om::parseOm(sig.data(), sig.size());
  EXPECT_EQ(om::omSigner(v), om::ed25519Fingerprint(k.pub, "pub"));
  EXPECT_EQ(om::omSigner(om::parseOm(plain.data(), plain.size())), "");
  auto m = rt::Model::loadFromMemory(sig.data(), sig.size(), withKey(pub), "m.om");
  std::vector<float> x = {-1, -1, -1, 0, 0, 0}, y(6);
  m->run({x.data()}, {y.data()});
  EXPECT_FLOAT_EQ(y[0], 0.0f);
  EXPECT_FLOAT_EQ(y[5], 2.5f);
  // The signed file also loads without a key, and from a file.
  std::string path = writeTemp("sig_ok.om", std::string(sig.begin(), sig.end()));
  EXPECT_NO_THROW(rt::Model::load(path, withKey(pub)));
  EXPECT_NO_THROW(rt::Model::loadFromMemory(sig.data(), sig.size(), 1));
}

TEST(OmSignature, UnsignedAlteredAndForeignModelsAreRefused) {
  KeyPair k = newKey(), other = newKey();
  std::string pub = writeTemp("sig_bad.pub.pem", k.pub);
  std::vector<uint8_t> plain = buildReluModel();
  std::vector<uint8_t> sig = om::signOm(plain, k.priv, "key");
  expectRefused(plain, pub, "not signed");
  expectRefused(om::signOm(plain, other.priv, "other"), pub, "signed by another key");
  // A changed weight byte with the checksum recomputed (an attacker can do that much).
  om::OmView v = om::parseOm(sig.data(), sig.size());
  uint64_t wsize = 0;
  size_t woff = v.part(om::kWeightsData, &wsize) - sig.data();
  ASSERT_GT(wsize, 0u);
  std::vector<uint8_t> altered = sig;
  altered[woff + 4] ^= 0x40;
  om::setChecksum(altered);
  expectRefused(altered, pub, "does not verify");
  // A changed header field (the model name), checksum recomputed.
  altered = sig;
  altered[41] ^= 1;
  om::setChecksum(altered);
  expectRefused(altered, pub, "does not verify");
  // A changed kernel library byte.
  size_t koff = v.part(om::kKernels, &wsize) - sig.data();
  altered = sig;
  altered[koff + wsize / 2] ^= 1;
  om::setChecksum(altered);
  expectRefused(altered, pub, "does not verify");
  // Without the checksum fixed, the checksum catches it first.
  altered = sig;
  altered[woff] ^= 1;
  expectRefused(altered, pub, "checksum");
  // Keys that are not keys.
  expectRefused(sig, writeTemp("sig_bad.txt", "hello"), "not a PEM");
  expectRefused(sig, ::testing::TempDir() + "/no-such-key.pem", "verify key");
  EXPECT_THROW(om::signOm(plain, k.pub, "a public key"), om::OmError);
}
