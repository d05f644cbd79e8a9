// Chapter 14
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch14 {

namespace {

// `[a,b]` with the shortest round-trip form of each number.
std::string ch14_list(const std::vector<double>& values) {
  return fmt::format("[{}]", fmt::join(values, ","));
}

std::string check_text(const GradientCheckReport& r) {
  return fmt::format("check_max_abs_error:{:.3e} passed:{}", r.max_abs_error(),
                     r.passed());
}

// The parents and local derivatives in use.
std::vector<double> ch14_locals(const ScalarNode& n) {
  return {n.local.begin(), n.local.begin() + n.arity};
}
std::string ch14_parents(const ScalarNode& n) {
  return fmt::format("[{}]",
                     fmt::join(n.parents.begin(), n.parents.begin() + n.arity, ","));
}

}  // namespace

// The prediction's tape node by node, every case with the checker's verdict, every
// refusal, then the exercises.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  const Differentiated& f = e.cases[1];
  for (std::size_t n = 0; n < f.nodes.size(); ++n) {
    const ScalarNode& node = f.nodes[n];
    lines.push_back(fmt::format("tape_{}=op:{} value:{} parents:{} local:{} adjoint:{}",
                                n, node.op, node.value, ch14_parents(node),
                                ch14_list(ch14_locals(node)), f.adjoints[n]));
  }
  for (const Differentiated& d : e.cases)
    lines.push_back(fmt::format(
        "case_{}=point:{} value:{} gradient:{} nodes:{} {}", d.name, ch14_list(d.point),
        d.value, ch14_list(d.gradient), d.nodes.size(), check_text(d.check)));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=cube_at_2 value:{} gradient:{} nodes:{} {}",
                              x.cube.value, ch14_list(x.cube.gradient),
                              x.cube.nodes.size(), check_text(x.cube.check)));
  lines.push_back(fmt::format(
      "exercise_2=neuron nodes:{} backward_multiply_adds:{} check_evaluations:{}",
      x.neuron_nodes, x.neuron_multiply_adds, x.neuron_evaluations));
  lines.push_back(fmt::format("exercise_3=overwriting_gradient:{} {}",
                              ch14_list(x.overwritten),
                              check_text(x.overwritten_check)));
  return snippets::join_lines(lines);
}

// region: trace-records
// For the fixture and the neuron: TAPE, then NODE per node (forward value, parents,
// local derivatives, adjoint) and ADD per adjoint update of the backward sweep, in
// sweep order. The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const std::size_t c : {std::size_t{1}, std::size_t{2}}) {
    const Differentiated& d = e.cases[c];
    records.push_back(fmt::format("TAPE|name={}|nodes={}|inputs={}", d.name,
                                  d.nodes.size(), d.point.size()));
    for (std::size_t n = 0; n < d.nodes.size(); ++n) {
      const ScalarNode& node = d.nodes[n];
      records.push_back(
          fmt::format("NODE|tape={}|index={}|op={}|value={:.6f}|parents={}|local=[{:."
                      "6f}]|adjoint={:.6f}",
                      d.name, n, node.op, node.value, ch14_parents(node),
                      fmt::join(ch14_locals(node), ","), d.adjoints[n]));
    }
    for (std::size_t n = d.nodes.size(); n-- > 0;)
      for (std::size_t k = 0; k < d.nodes[n].arity; ++k)
        records.push_back(fmt::format("ADD|tape={}|from={}|to={}|amount={:.6f}", d.name,
                                      n, d.nodes[n].parents[k],
                                      d.nodes[n].local[k] * d.adjoints[n]));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch14
