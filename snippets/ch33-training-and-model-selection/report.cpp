// Chapter 33
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch33 {

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("schedule=[{:.6f}]", fmt::join(e.schedule, ",")));
  lines.push_back(fmt::format("clip=norm:{:.6f} scale:{:.9f} after:[{:.9f}],[{:.9f}]",
                              e.clip.norm, e.clip.scale, fmt::join(e.clipped[0], ","),
                              fmt::join(e.clipped[1], ",")));
  lines.push_back(fmt::format("selection=kept:[{}] step:{} loss:{:.2f}",
                              fmt::join(e.selection.kept, ","), e.selection.step,
                              e.selection.loss));
  const Replay& r = e.replay;
  lines.push_back(
      fmt::format("torch_run=steps:{} parameters:{} elements:{} clipped_steps:{}",
                  r.steps, r.parameters, r.elements, r.clipped_steps));
  lines.push_back(
      fmt::format("torch_run_max_relative=loss:{:.1e} grad_norm:{:.1e} "
                  "validation:{:.1e} final_values:{:.1e} selected_values:{:.1e}",
                  r.loss_max_relative, r.norm_max_relative, r.validation_max_relative,
                  r.values_max_relative, r.selected_max_relative));
  lines.push_back(fmt::format(
      "torch_run_selection=selected_step:{} torch_lowest_step:{} selected_loss:{:.6f} "
      "final_loss:{:.6f}",
      r.selected_step, r.torch_best_step, r.selected_loss, r.final_loss));
  const CorpusRun& c = e.corpus;
  lines.push_back(fmt::format(
      "corpus_data=train_documents:{} train_examples:{} validation_examples:{} "
      "parameters:{}",
      c.train_documents, c.train_examples, c.validation_examples, c.parameters));
  for (const auto& ev : c.result.evaluations) {
    if (ev.step == 0) {
      lines.push_back(
          fmt::format("corpus_step_0=validation_loss:{:.6f}", ev.validation_loss));
      continue;
    }
    const auto& s = c.result.steps[ev.step - 1];
    lines.push_back(
        fmt::format("corpus_step_{}=lr:{:.6f} train_loss:{:.6f} "
                    "validation_loss:{:.6f} best_so_far:{}",
                    ev.step, s.learning_rate, s.loss, ev.validation_loss, ev.best));
  }
  lines.push_back(fmt::format("corpus_selected=step:{} validation_loss:{:.6f}",
                              c.result.selected.step(), c.result.selected.loss()));
  lines.push_back(fmt::format("corpus_same_seed_same_bits={}", c.reproducible));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("refuse_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=no_warmup_first_rate:{:.9f}", x.no_warmup_first_rate));
  lines.push_back(fmt::format("exercise_2=unclipped_from_c:{:.6f}", x.unclipped_from));
  lines.push_back(fmt::format("exercise_3=final_minus_selected_validation:{:.6f}",
                              x.last_minus_selected));
  lines.push_back(fmt::format("exercise_4=clipped_steps:{}", x.clipped_steps));
  return snippets::join_lines(lines);
}

std::string render_trace(const Evidence& e) {
  std::vector<std::string> lines;
  const auto& result = e.corpus.result;
  for (const auto& s : result.steps)
    lines.push_back(
        fmt::format("STEP|step={}|lr={:.6f}|loss={:.6f}|norm={:.6f}|scale={:.6f}",
                    s.step, s.learning_rate, s.loss, s.gradient_norm, s.clip_scale));
  for (const auto& ev : result.evaluations)
    lines.push_back(fmt::format("EVAL|step={}|validation={:.6f}|best={}", ev.step,
                                ev.validation_loss, ev.best));
  lines.push_back(fmt::format("SELECTED|step={}|validation={:.6f}",
                              result.selected.step(), result.selected.loss()));
  return snippets::join_lines(lines);
}

}  // namespace ch33
