// HMAC-SHA-256 (FIPS 180-4, RFC 2104), random bytes from the kernel and hex, for
// authenticating the ranks of a group: a peer proves it knows the group's
// secret by answering a fresh challenge, so the secret never crosses a socket.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace wm {
namespace auth {

using Digest = std::array<uint8_t, 32>;

Digest sha256(const std::string& data);
Digest hmacSha256(const std::string& key, const std::string& message);
// Constant-time comparison: how long it takes says nothing about where two
// digests differ.
bool equalDigests(const std::string& a, const std::string& b);
// n bytes from getrandom(2).
std::string randomBytes(size_t n);
std::string toHex(const std::string& bytes);
// Throws naming `what` if s is not an even-length hex string.
std::string fromHex(const std::string& hex, const std::string& what);

}  // namespace auth
}  // namespace wm
