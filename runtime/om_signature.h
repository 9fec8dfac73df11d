// Signed .om files (docs/security.md, docs/om-format.md): an Ed25519 signature in a
// SIGNATURE partition, made by `atc --sign_key` and checked by `omrun --verify_key` and the
// runtime API before any of the model's code is mapped. OpenSSL's libcrypto does the
// cryptography.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/om_format.h"

namespace atc {
namespace om {

constexpr uint32_t kFlagSigned = 1;        // header flags bit: the file carries a SIGNATURE partition
constexpr size_t kSignaturePartSize = 128;  // "ATCSIG01", key fingerprint (32), signature (64), zeros

// SHA-256 of the raw 32-byte public key, as 64 hex digits: names the key that signed a model.
// keyPem: an Ed25519 public key or private key in PEM (the public half is used).
// Throws OmError when the text is not such a key.
std::string ed25519Fingerprint(const std::string& keyPem, const std::string& what);

// Returns `om` signed with the Ed25519 private key `privateKeyPem` (PKCS#8 PEM, as written by
// `openssl genpkey -algorithm ed25519`). A SIGNATURE partition already there is replaced.
// Throws OmError (a bad key, a bad .om).
std::vector<uint8_t> signOm(const std::vector<uint8_t>& om, const std::string& privateKeyPem,
                            const std::string& keyWhat);

// Signs `om` in place: it must already hold a SIGNATURE partition (om::reservedSignature, or
// an earlier signature, which is replaced). Throws OmError.
void signOmInPlace(uint8_t* om, size_t size, const std::string& privateKeyPem, const std::string& keyWhat);
inline void signOmInPlace(std::vector<uint8_t>& om, const std::string& privateKeyPem, const std::string& keyWhat) {
  signOmInPlace(om.data(), om.size(), privateKeyPem, keyWhat);
}

// The fingerprint of the key that signed the model, or "" when it is not signed.
// Throws OmError when the SIGNATURE partition is malformed.
std::string omSigner(const OmView& v);

// Throws OmError unless the model is signed by the key `publicKeyPem` and unchanged since.
void verifyOmSignature(const OmView& v, const std::string& publicKeyPem, const std::string& keyWhat);

}  // namespace om
}  // namespace atc
