// Chapter 17
#include <fmt/format.h>

#include <llmfs/nn/parameters.hpp>

namespace llmfs::nn {

// region: named-parameters-checks
std::expected<NamedParameters, NnError> NamedParameters::create(
    std::vector<NamedParameter> parameters) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const auto& current = parameters[i];
    if (current.name.empty()) {
      return reject(NnErrorCode::empty_name, "named parameters",
                    fmt::format("entry {}", i));
    }
    for (std::size_t j = 0; j < i; ++j) {
      const auto& earlier = parameters[j];
      if (earlier.name == current.name) {
        return reject(NnErrorCode::duplicate_name, "named parameters",
                      fmt::format("'{}' at entries {} and {}", current.name, j, i));
      }
      if (earlier.value.tape() == current.value.tape() &&
          earlier.value.node_id() == current.value.node_id()) {
        return reject(NnErrorCode::duplicate_node, "named parameters",
                      fmt::format("'{}' and '{}' are node {}", earlier.name,
                                  current.name, current.value.node_id()));
      }
    }
  }
  return NamedParameters(std::move(parameters));
}
// endregion: named-parameters-checks

const NamedParameter* NamedParameters::find(std::string_view name) const noexcept {
  for (const auto& parameter : items_) {
    if (parameter.name == name) return &parameter;
  }
  return nullptr;
}

std::size_t NamedParameters::scalar_count() const noexcept {
  std::size_t count = 0;
  for (const auto& parameter : items_)
    count += parameter.value.shape().element_count().value_or(0);
  return count;
}

}  // namespace llmfs::nn
