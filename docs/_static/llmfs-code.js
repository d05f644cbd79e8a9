// The source view (_code/PATH.html): mark the lines named in the address, #L5 or #L5-L20,
// and bring the first into view. Without JavaScript, #L5 still marks line 5 (CSS :target).
(function () {
  function mark() {
    document.querySelectorAll("tr.llmfs-marked").forEach((row) => row.classList.remove("llmfs-marked"));
    const m = /^#L(\d+)(?:-L(\d+))?$/.exec(window.location.hash);
    if (!m) return;
    const first = Number(m[1]);
    const last = m[2] ? Number(m[2]) : first;
    for (let n = first; n <= last; n++) {
      const row = document.getElementById("L" + n);
      if (row) row.classList.add("llmfs-marked");
    }
    const start = document.getElementById("L" + first);
    if (start) start.scrollIntoView({ block: "start" });
  }
  window.addEventListener("hashchange", mark);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
})();
