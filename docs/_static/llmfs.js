// The book's one script. A tall diagram (more than 1.25 times the compact height) shows
// its top on the page with a button that opens the whole diagram in place; without
// JavaScript every diagram is shown whole.
(function () {
  function compactDiagrams() {
    document.querySelectorAll(".llmfs-diagram-body").forEach((body) => {
      const limit = 30 * parseFloat(getComputedStyle(document.documentElement).fontSize);
      const full = body.scrollHeight;
      if (full <= 1.25 * limit || body.dataset.llmfsCompact) return;
      body.dataset.llmfsCompact = "1";
      body.classList.add("llmfs-compact");
      body.id = body.id || (body.closest("figure") || {}).id + "-body";
      const button = document.createElement("button");
      button.type = "button";
      button.className = "llmfs-expand";
      button.setAttribute("aria-expanded", "false");
      button.setAttribute("aria-controls", body.id);
      const label = () => (body.classList.contains("llmfs-compact")
        ? `Show the whole diagram (${Math.round(full)} px tall)` : "Show less of the diagram");
      button.textContent = label();
      button.addEventListener("click", () => {
        body.classList.toggle("llmfs-compact");
        button.setAttribute("aria-expanded", String(!body.classList.contains("llmfs-compact")));
        button.textContent = label();
      });
      body.insertAdjacentElement("afterend", button);
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", compactDiagrams);
  else compactDiagrams();
})();

// A Predict section's folded answers ({answer}) print open: opened before printing, and
// the ones the reader had not opened are closed again afterwards.
(function () {
  let opened = [];
  window.addEventListener("beforeprint", () => {
    opened = [...document.querySelectorAll("details.llmfs-answer:not([open])")];
    opened.forEach((d) => { d.open = true; });
  });
  window.addEventListener("afterprint", () => {
    opened.forEach((d) => { d.open = false; });
    opened = [];
  });
})();
