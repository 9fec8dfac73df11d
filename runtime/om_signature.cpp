#include "runtime/om_signature.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <cstring>
#include <memory>

namespace atc {
namespace om {
namespace {

constexpr char kSigMagic[8] = {'A', 'T', 'C', 'S', 'I', 'G', '0', '1'};
constexpr size_t kFprOff = 8, kSigOff = 40, kSigLen = 64;
constexpr size_t kChecksumOff = 16;  // header field excluded from the signed digest (it covers the signature)
const char kDomain[] = "atc-om-ed25519-v1\n";

struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using Pkey = std::unique_ptr<EVP_PKEY, PkeyFree>;
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtx = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;

// Reads a PEM key: a public key, else a private key (when wantPrivate or as a source of the public half).
Pkey readKey(const std::string& pem, bool wantPrivate, const std::string& what) {
  auto parse = [&](bool priv) -> EVP_PKEY* {
    BIO* bio = BIO_new_mem_buf(pem.data(), (int)std::min<size_t>(pem.size(), 1 << 20));
    if (!bio) return nullptr;
    EVP_PKEY* k = priv ? PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr)
                       : PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return k;
  };
  Pkey k(wantPrivate ? nullptr : parse(false));
  if (!k) k.reset(parse(true));
  if (!k)
    throw OmError(what + " is not " + (wantPrivate ? "a PEM private key" : "a PEM public or private key") +
                  " (make one with: openssl genpkey -algorithm ed25519 -out key.pem; "
                  "openssl pkey -in key.pem -pubout -out key.pub.pem)");
  if (EVP_PKEY_id(k.get()) != EVP_PKEY_ED25519) throw OmError(what + " is not an Ed25519 key");
  return k;
}

std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

std::vector<uint8_t> rawFingerprint(EVP_PKEY* k) {
  uint8_t raw[32];
  size_t n = sizeof raw;
  if (EVP_PKEY_get_raw_public_key(k, raw, &n) != 1 || n != 32) throw OmError("cannot read the Ed25519 public key");
  std::vector<uint8_t> out(32);
  unsigned len = 0;
  if (EVP_Digest(raw, n, out.data(), &len, EVP_sha256(), nullptr) != 1 || len != 32)
    throw OmError("SHA-256 failed");
  return out;
}

// The SIGNATURE partition of a parsed model; nullptr when it has none.
const Partition* signaturePartition(const OmView& v) {
  const Partition* found = nullptr;
  for (auto& p : v.partitions)
    if (p.type == kSignature) {
      if (found) throw OmError("the model has more than one SIGNATURE partition");
      found = &p;
    }
  if (!found) return nullptr;
  if (found->size != kSignaturePartSize || std::memcmp(v.data + found->offset, kSigMagic, 8) != 0)
    throw OmError("the model's SIGNATURE partition is malformed");
  if (!(v.header.flags & kFlagSigned)) throw OmError("the model has a SIGNATURE partition but is not flagged as signed");
  return found;
}

// The signed message: a domain tag, then SHA-512 of the whole file with the header checksum
// and the 64 signature bytes read as zeros.
std::vector<uint8_t> signedMessage(const uint8_t* f, size_t size, size_t sigAt) {
  static const uint8_t zeros[64] = {};
  MdCtx ctx(EVP_MD_CTX_new());
  uint8_t dg[64];
  unsigned len = 0;
  bool ok = ctx && EVP_DigestInit_ex(ctx.get(), EVP_sha512(), nullptr) == 1 &&
            EVP_DigestUpdate(ctx.get(), f, kChecksumOff) == 1 && EVP_DigestUpdate(ctx.get(), zeros, 8) == 1 &&
            EVP_DigestUpdate(ctx.get(), f + kChecksumOff + 8, sigAt - kChecksumOff - 8) == 1 &&
            EVP_DigestUpdate(ctx.get(), zeros, kSigLen) == 1 &&
            EVP_DigestUpdate(ctx.get(), f + sigAt + kSigLen, size - sigAt - kSigLen) == 1 &&
            EVP_DigestFinal_ex(ctx.get(), dg, &len) == 1 && len == 64;
  if (!ok) throw OmError("SHA-512 failed");
  std::vector<uint8_t> msg(kDomain, kDomain + sizeof(kDomain) - 1);
  msg.insert(msg.end(), dg, dg + 64);
  return msg;
}

}  // namespace

std::string ed25519Fingerprint(const std::string& keyPem, const std::string& what) {
  Pkey k = readKey(keyPem, false, what);
  auto f = rawFingerprint(k.get());
  return hex(f.data(), f.size());
}

std::string omSigner(const OmView& v) {
  const Partition* p = signaturePartition(v);
  return p ? hex(v.data + p->offset + kFprOff, 32) : std::string();
}

std::vector<uint8_t> signOm(const std::vector<uint8_t>& om, const std::string& privateKeyPem, const std::string& keyWhat) {
  readKey(privateKeyPem, true, keyWhat);  // a bad key is reported before the model is copied
  OmView v = parseOm(om.data(), om.size(), "the model to sign");
  if (signaturePartition(v)) {
    std::vector<uint8_t> out = om;
    signOmInPlace(out, privateKeyPem, keyWhat);
    return out;
  }
  std::vector<std::pair<uint32_t, std::vector<uint8_t>>> parts;
  for (auto& p : v.partitions)
    parts.push_back({p.type, std::vector<uint8_t>(om.data() + p.offset, om.data() + p.offset + p.size)});
  Header h = v.header;
  PartSource sig = reservedSignature(h);
  std::vector<uint8_t> bytes(sig.size, 0);
  sig.fill(bytes.data());
  parts.push_back({kSignature, std::move(bytes)});
  std::vector<uint8_t> out = writeOm(h, parts);
  signOmInPlace(out, privateKeyPem, keyWhat);
  return out;
}

void signOmInPlace(uint8_t* om, size_t size, const std::string& privateKeyPem, const std::string& keyWhat) {
  Pkey key = readKey(privateKeyPem, true, keyWhat);
  OmView v = parseOm(om, size, "the model to sign");
  const Partition* p = signaturePartition(v);
  if (!p) throw OmError("the model has no SIGNATURE partition to sign in place");
  auto fpr = rawFingerprint(key.get());
  std::memcpy(om + p->offset + kFprOff, fpr.data(), 32);
  size_t sigAt = p->offset + kSigOff;
  std::vector<uint8_t> msg = signedMessage(om, size, sigAt);
  MdCtx ctx(EVP_MD_CTX_new());
  size_t slen = kSigLen;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), om + sigAt, &slen, msg.data(), msg.size()) != 1 || slen != kSigLen)
    throw OmError("Ed25519 signing failed");
  setChecksum(om, size);
}

void verifyOmSignature(const OmView& v, const std::string& publicKeyPem, const std::string& keyWhat) {
  Pkey key = readKey(publicKeyPem, false, keyWhat);
  const Partition* p = signaturePartition(v);
  if (!p) throw OmError("the model is not signed (build it with atc --sign_key=KEY to run it with a verify key)");
  auto fpr = rawFingerprint(key.get());
  if (std::memcmp(v.data + p->offset + kFprOff, fpr.data(), 32) != 0)
    throw OmError("the model is signed by another key (signer " + hex(v.data + p->offset + kFprOff, 32) +
                  ", verify key " + hex(fpr.data(), 32) + ")");
  size_t sigAt = p->offset + kSigOff;
  std::vector<uint8_t> msg = signedMessage(v.data, v.size, sigAt);
  MdCtx ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), v.data + sigAt, kSigLen, msg.data(), msg.size()) != 1)
    throw OmError("the model's signature does not verify: it was changed after it was signed");
}

}  // namespace om
}  // namespace atc
