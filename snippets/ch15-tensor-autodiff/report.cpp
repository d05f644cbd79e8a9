// Chapter 15
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <algorithm>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch15 {

namespace {

void ch15_nested(std::string& out, std::span<const double> v, const Shape& shape,
                 std::size_t axis) {
  if (axis == shape.rank()) {
    out += fmt::format("{}", v[0]);
    return;
  }
  const std::size_t stride = v.size() / std::max<std::size_t>(shape[axis], 1);
  out += '[';
  for (std::size_t i = 0; i < shape[axis]; ++i) {
    if (i > 0) out += ',';
    ch15_nested(out, v.subspan(i * stride, stride), shape, axis + 1);
  }
  out += ']';
}

std::string ch15_check(const GradientCheckReport& r) {
  return fmt::format("coordinates:{} max_abs_error:{:.3e} passed:{}", r.coordinates(),
                     r.max_abs_error(), r.passed());
}

std::string ch15_three(const std::vector<Tensor>& g) {
  return fmt::format("X:{} W:{} b:{}", tensor_text(g[0]), tensor_text(g[1]),
                     tensor_text(g[2]));
}

std::string ch15_gradient(const std::optional<Tensor>& g) {
  return g ? tensor_text(*g) : std::string("none");
}

}  // namespace

std::string tensor_text(const Tensor& t) {
  std::string out;
  ch15_nested(out, t.values(), t.shape(), 0);
  return out;
}

// The prediction's tape node by node, the backward order, then seeds, replay, every
// op's check and every refusal.
void add_fixture_lines(const Evidence& e, std::vector<std::string>& lines) {
  const FixtureRun& f = e.fixture;
  lines.push_back(fmt::format("predict_loss={}", f.loss));
  lines.push_back(
      fmt::format("predict_gradients={}",
                  ch15_three({*f.gradients[0], *f.gradients[1], *f.gradients[2]})));
  for (const NodeInfo& n : f.nodes)
    lines.push_back(
        fmt::format("tape_{}=op:{} parents:[{}] shape:{} value:{} gradient:{}", n.id,
                    n.op, fmt::join(n.parents, ","), n.shape,
                    tensor_text(f.values[n.id]), ch15_gradient(f.gradients[n.id])));
  lines.push_back(fmt::format("backward_order=[{}]", fmt::join(f.order, ",")));
  lines.push_back(fmt::format("fixture_check={}", ch15_check(f.check)));
  lines.push_back(fmt::format("seed_two={}", ch15_three(e.seed_two)));
  lines.push_back(fmt::format("seed_at_y={} bitwise_same_as_seed_1_at_loss:{}",
                              ch15_three(e.seeded_at_y), e.seeded_at_y_identical));
  lines.push_back(fmt::format("replay=gradient_elements:{} bitwise_identical:{}",
                              e.replay_elements, e.replay_identical));
  for (const OpCheck& c : e.checks)
    lines.push_back(fmt::format("check_{}=shapes:{} {}", c.op, fmt::join(c.shapes, "&"),
                                ch15_check(c.report)));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
}

// Then the exercises and the misconception.
void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=X.gradient:{} W:{} b:{}", x.constant_x_error,
                              tensor_text(x.constant_x_wb[0]),
                              tensor_text(x.constant_x_wb[1])));
  lines.push_back(fmt::format("exercise_2=linear_loss {}", ch15_three(x.linear)));
  lines.push_back(fmt::format("exercise_3=two_passes {} check_{}", ch15_three(x.twice),
                              ch15_check(x.twice_check)));
  lines.push_back(fmt::format(
      "misconception=backward(Y,2Y) W:{} backward(loss,1) W:{} bitwise_same:{}",
      tensor_text(e.seeded_at_y[1]), tensor_text(*e.fixture.gradients[1]),
      e.seeded_at_y_identical));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_fixture_lines(e, lines);
  add_exercise_lines(e, lines);
  return snippets::join_lines(lines);
}

// region: trace-records
// NODE per node of the prediction's tape (op, parents, shape, value, gradient), then
// VISIT per backward closure in the order backward() ran them, and SHARE per parent
// edge of each visited node. The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  const FixtureRun& f = e.fixture;
  std::vector<std::string> records;
  records.push_back(
      fmt::format("TAPE|name=fixture|nodes={}|loss={}", f.nodes.size(), f.loss));
  for (const NodeInfo& n : f.nodes)
    records.push_back(
        fmt::format("NODE|id={}|op={}|parents=[{}]|shape={}|value={}|gradient={}", n.id,
                    n.op, fmt::join(n.parents, ","), n.shape,
                    tensor_text(f.values[n.id]), ch15_gradient(f.gradients[n.id])));
  for (std::size_t step = 0; step < f.order.size(); ++step) {
    const NodeInfo& n = f.nodes[f.order[step]];
    records.push_back(fmt::format("VISIT|step={}|node={}|op={}|to=[{}]", step, n.id,
                                  n.op, fmt::join(n.parents, ",")));
  }
  for (const EdgeShare& s : f.shares)
    records.push_back(fmt::format("SHARE|step={}|node={}|slot={}|to={}|value={}",
                                  s.step, s.node, s.slot, s.to, tensor_text(s.value)));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch15
