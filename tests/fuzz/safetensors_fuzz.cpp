// Chapter 35
// The checkpoint loader under libFuzzer (tools/fuzz-checkpoint.sh builds and runs it
// with AddressSanitizer and UndefinedBehaviorSanitizer). Each input is decoded as it
// is; then its checksum field, if there is one, is recomputed and the input decoded
// again, so that mutated bytes also reach the stages after the checksum. A file that
// decodes must survive encode -> decode unchanged, bit for bit; anything else is a
// typed error, and every error must format. A crash, a sanitizer report or a broken
// round trip stops the fuzzer.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/training/safetensors.hpp>

namespace {

void check(std::string_view bytes) {
  using namespace llmfs::training;
  const auto decoded = decode_tensor_file(bytes, "fuzz-input");
  if (!decoded) {
    if (fmt::format("{}", decoded.error()).empty()) __builtin_trap();
    return;
  }
  const auto encoded = encode_tensor_file(*decoded, "fuzz-reencode");
  if (!encoded) __builtin_trap();  // what was read must be writable
  const auto again = decode_tensor_file(*encoded, "fuzz-reencode");
  if (!again || !(*again == *decoded)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  check(bytes);
  std::string sealed(bytes);
  if (llmfs::training::seal_checksum(sealed)) check(sealed);
  return 0;
}
