// Measurements of one rendered page, run in the page by browser_check.py (DevTools
// Runtime.evaluate). Returns plain JSON; browser_check.py decides what fails.
// options: contrast (the WCAG walk, and light boxes on a dark page), text (the article's
// text), skip (sections not measured, their keys left out of the result so that a caller
// reading one fails loudly): "covered" (copy button over text), "lines" (wrapped output
// rows, continuation marks, copied text), "captions" (caption size and overflow).
((options) => {
  const skip = new Set(options.skip || []);
  // Measure the settled page: no colour transitions half-way (the copy button fades 300 ms).
  if (!document.getElementById("llmfs-measure-style")) {
    const style = document.createElement("style");
    style.id = "llmfs-measure-style";
    style.textContent = "*, *::before, *::after { transition: none !important; animation: none !important; }";
    document.head.appendChild(style);
  }
  const px = (v) => parseFloat(v) || 0;
  // visibleWith: for a caller that has the element's computed style already. (visible is
  // passed to filter(), which gives it an index as its second argument.)
  const visibleWith = (el, cs) => {
    const rects = el.getClientRects();
    if (!rects.length) return false;
    return cs.visibility !== "hidden" && cs.display !== "none" && px(cs.opacity) > 0.01;
  };
  const visible = (el) => visibleWith(el, getComputedStyle(el));
  const describe = (el) => {
    const wrapper = el.closest(".literal-block-wrapper, figure, section");
    const caption = wrapper && wrapper.querySelector(".code-block-caption, figcaption, h1, h2, h3");
    const where = caption ? caption.textContent.trim().replace(/\s+/g, " ").slice(0, 90) : el.tagName;
    return where;
  };

  // ---- colours and contrast (WCAG 2 relative luminance)
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text || "");
    if (!m) return null;
    const parts = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [parts[0], parts[1], parts[2], parts.length > 3 ? parts[3] : 1];
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const luminance = (c) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
  };
  const ratio = (a, b) => {
    const la = luminance(a), lb = luminance(b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  // The colours behind an element: its own and its ancestors' backgrounds composited,
  // with every colour stop of a gradient (hatching) as a separate candidate. The layers
  // stop at the first opaque background (or the root); below them is the body over the
  // root. Memoised per element: an element's bases are its own layer over its parent's
  // bases (or over the start, if it is opaque or the root), the same compositions in the
  // same order as walking up from each text element, once per element instead of once per
  // descendant.
  const start = (() => {
    const root = parse(getComputedStyle(document.documentElement).backgroundColor);
    const body = parse(getComputedStyle(document.body).backgroundColor);
    if (body && body[3] > 0) return [over(body, root && root[3] > 0 ? root : [255, 255, 255, 1])];
    return [[255, 255, 255, 1]];
  })();
  const memo = new Map();
  const backgrounds = (el) => {
    let bases = memo.get(el);
    if (bases) return bases;
    const cs = getComputedStyle(el);
    const stops = (cs.backgroundImage.match(/rgba?\([^)]+\)/g) || []).map(parse);
    const colour = parse(cs.backgroundColor);
    bases = (colour && colour[3] >= 0.999) || !el.parentElement ? start : backgrounds(el.parentElement);
    if (colour && colour[3] > 0) bases = bases.map((b) => over(colour, b));
    if (stops.length) bases = bases.flatMap((b) => stops.map((s) => over(s, b)));
    memo.set(el, bases);
    return bases;
  };
  // The worst ratio of a text colour over the candidate backgrounds; most text shares its
  // colour and its bases with its neighbours, so each pair is computed once.
  const ratios = new Map();  // bases -> text colour -> ratio
  const contrastOf = (el, cs) => {  // cs: the element's computed style, if the caller has it
    const colour = (cs || getComputedStyle(el)).color;
    const bgs = backgrounds(el);
    let known = ratios.get(bgs);
    if (!known) ratios.set(bgs, (known = new Map()));
    if (!known.has(colour)) {
      const fg = parse(colour);
      known.set(colour, Math.min(...bgs.map((bg) => ratio(over(fg, bg), bg))));
    }
    return known.get(colour);
  };
  // Every element with its own visible text, grouped; the worst ratio of each group.
  const groups = { code: [], output: [], diagram: [], caption: [], prose: [], copy: [] };
  // Which of these selectors the element or an ancestor matches (el.closest(s) for each),
  // as bits, memoised: each ancestor is matched once, not once per text element under it.
  const SKIPPED = 1, OUTPUT = 2, CODE = 4, DIAGRAM = 8, CAPTION = 16;
  const selectors = [[SKIPPED, "script, style, .MathJax_Preview, mjx-assistive-mml, .MJX_Assistive_MathML"],
                     [OUTPUT, ".llmfs-output"], [CODE, ".highlight"],
                     [DIAGRAM, ".llmfs-diagram-body, details.llmfs-diagram-text"], [CAPTION, ".code-block-caption, figcaption"]];
  const within = new Map();
  const withinOf = (el) => {
    if (!el) return 0;
    let bits = within.get(el);
    if (bits !== undefined) return bits;
    bits = withinOf(el.parentElement);
    for (const [bit, selector] of selectors) if (!(bits & bit) && el.matches(selector)) bits |= bit;
    within.set(el, bits);
    return bits;
  };
  const article = document.querySelector("article") || document.body;
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const seen = new Set();
  for (let node = options.contrast ? walker.nextNode() : null; node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (!el || seen.has(el)) continue;
    const cs = getComputedStyle(el);
    if (!visibleWith(el, cs) || withinOf(el) & SKIPPED) continue;
    seen.add(el);
    const bits = withinOf(el);
    const group = bits & OUTPUT ? "output" : bits & CODE ? "code" : bits & DIAGRAM ? "diagram"
      : bits & CAPTION ? "caption" : "prose";
    groups[group].push({ ratio: contrastOf(el, cs), el, node });
  }
  document.querySelectorAll(".highlight button.copybtn").forEach((button) => {
    if (visible(button)) groups.copy.push({ ratio: contrastOf(button), button });
  });
  // Described only for the three worst of each group (the sort is stable: ties keep page order).
  const where = (i) => i.button ? describe(i.button)
    : `${i.el.tagName.toLowerCase()}.${i.el.className || ""} "${i.node.textContent.trim().slice(0, 30)}"`;
  const contrast = {};
  for (const [name, items] of Object.entries(groups)) {
    if (!items.length) continue;
    items.sort((a, b) => a.ratio - b.ratio);
    contrast[name] = { min: +items[0].ratio.toFixed(2), count: items.length,
                       worst: items.slice(0, 3).map((i) => `${i.ratio.toFixed(2)} ${where(i)}`) };
  }

  // ---- sideways scrolling
  const pres = [...document.querySelectorAll("article pre")].filter(visible);
  const overflowing = (p) => p.scrollWidth > p.clientWidth + 1;
  const listings = pres.filter((p) => p.closest(".llmfs-region"));
  const outputs = pres.filter((p) => p.closest(".llmfs-demo-output"));
  const doc = document.documentElement;

  // ---- the copy button never covers text (its box against every text line box in the block)
  const covered = [];
  if (!skip.has("covered")) document.querySelectorAll(".highlight button.copybtn").forEach((button) => {
    const b = button.getBoundingClientRect();
    if (!b.width) return;
    const block = button.closest(".literal-block-wrapper") || button.closest(".highlight");
    const w = document.createTreeWalker(block, NodeFilter.SHOW_TEXT);
    for (let t = w.nextNode(); t; t = w.nextNode()) {
      if (!t.textContent.trim() || button.contains(t)) continue;
      const range = document.createRange();
      range.selectNodeContents(t);
      for (const r of range.getClientRects()) {
        if (r.width && r.left < b.right && r.right > b.left && r.top < b.bottom && r.bottom > b.top) {
          covered.push(`${describe(button)}: "${t.textContent.trim().slice(0, 30)}"`);
          return;
        }
      }
    }
  });

  // ---- demo outputs: wrapped rows carry a continuation mark; copying gives the plain lines
  const lines = skip.has("lines") ? [] : [...document.querySelectorAll(".llmfs-out-line, .llmfs-line")].filter(visible);
  let wrapped = 0, unmarked = 0;
  for (const line of lines) {
    const lh = px(getComputedStyle(line).lineHeight);
    if (line.getBoundingClientRect().height > 1.5 * lh) {
      wrapped++;
      const mark = getComputedStyle(line, "::before");
      const ok = mark.content !== "none" && mark.display !== "none" && px(mark.width) > 4 &&
        (mark.maskImage || mark.webkitMaskImage || "none") !== "none";
      if (!ok) unmarked++;
    }
  }
  const copyText = skip.has("lines") ? [] : [...document.querySelectorAll(".highlight pre")].map((p) => p.innerText);
  const badCopy = copyText.filter((t) => t.split("\n").filter(Boolean).some((l) => l.startsWith("↪"))).length;

  // ---- captions readable on a phone
  const captions = skip.has("captions") ? [] : [...document.querySelectorAll(".code-block-caption, figure.llmfs-diagram figcaption")].filter(visible);
  const smallCaption = [];
  for (const c of captions) {
    for (const el of [c, ...c.querySelectorAll("*")]) {
      if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
      const size = px(getComputedStyle(el).fontSize);
      if (size < 12) { smallCaption.push(`${size.toFixed(1)} px: ${describe(c)}`); break; }
    }
  }
  const captionOverflow = captions.filter((c) => c.scrollWidth > c.clientWidth + 1 ||
    c.getBoundingClientRect().right > doc.clientWidth + 1).map(describe);

  // ---- links and diagrams
  const apiLinks = [...document.querySelectorAll(".highlight a.llmfs-api")];
  const proseApiLinks = [...document.querySelectorAll("a.llmfs-api-ref")];
  const diagrams = [...document.querySelectorAll("figure.llmfs-diagram")].map((f) => {
    const body = f.querySelector(".llmfs-diagram-body");
    const button = f.querySelector("button.llmfs-expand");
    return { title: (f.querySelector("figcaption .caption-text") || { textContent: "" }).textContent.trim().slice(0, 80),
             height: Math.round(body.getBoundingClientRect().height), full: body.scrollHeight,
             button: button ? visible(button) : false };
  });
  // ---- diagram text inside its drawing: every <text> of a diagram's SVG lies inside the
  // part of the SVG that is shown (its box and its viewBox), inside the clip region it is
  // drawn under, and is crossed by no drawn line (line, polyline, path; clipped lines only
  // where they are drawn). Screen coordinates throughout (getScreenCTM maps user units).
  const diagramText = [];
  const clipRect = (el) => {  // the screen rect of the first clip-path rect on el or an ancestor inside its svg
    for (let e = el; e && e.tagName.toLowerCase() !== "svg"; e = e.parentElement) {
      const ref = e.getAttribute("clip-path");
      const m = ref && /url\(#([^)]+)\)/.exec(ref);
      const rect = m && document.getElementById(m[1]) && document.getElementById(m[1]).querySelector("rect");
      if (!rect) continue;
      const ctm = e.getScreenCTM();
      const x = rect.x.baseVal.value, y = rect.y.baseVal.value, w = rect.width.baseVal.value, h = rect.height.baseVal.value;
      const a = new DOMPoint(x, y).matrixTransform(ctm), b = new DOMPoint(x + w, y + h).matrixTransform(ctm);
      return { left: Math.min(a.x, b.x), right: Math.max(a.x, b.x), top: Math.min(a.y, b.y), bottom: Math.max(a.y, b.y) };
    }
    return null;
  };
  const clipSegment = (p, q, r) => {  // Liang-Barsky: the part of segment pq inside rect r, or null
    let t0 = 0, t1 = 1;
    const dx = q.x - p.x, dy = q.y - p.y;
    for (const [pk, qk] of [[-dx, p.x - r.left], [dx, r.right - p.x], [-dy, p.y - r.top], [dy, r.bottom - p.y]]) {
      if (pk === 0) { if (qk < 0) return null; continue; }
      const t = qk / pk;
      if (pk < 0) { if (t > t1) return null; if (t > t0) t0 = t; } else { if (t < t0) return null; if (t < t1) t1 = t; }
    }
    return [{ x: p.x + t0 * dx, y: p.y + t0 * dy }, { x: p.x + t1 * dx, y: p.y + t1 * dy }];
  };
  const segmentsOf = (el) => {  // a drawn line's segments in screen coordinates
    const ctm = el.getScreenCTM();
    const at = (x, y) => new DOMPoint(x, y).matrixTransform(ctm);
    let points = [];
    const tag = el.tagName.toLowerCase();
    if (tag === "line") points = [at(el.x1.baseVal.value, el.y1.baseVal.value), at(el.x2.baseVal.value, el.y2.baseVal.value)];
    else if (tag === "polyline" || tag === "polygon") points = [...el.points].map((pt) => at(pt.x, pt.y));
    else if (tag === "path") {
      const n = Math.max(2, Math.ceil(el.getTotalLength() / 4));
      for (let i = 0; i <= n; i++) { const pt = el.getPointAtLength(el.getTotalLength() * i / n); points.push(at(pt.x, pt.y)); }
    }
    const segments = [];
    for (let i = 1; i < points.length; i++) segments.push([points[i - 1], points[i]]);
    if (tag === "polygon" && points.length > 2) segments.push([points[points.length - 1], points[0]]);
    const clip = clipRect(el);
    return clip ? segments.map(([p, q]) => clipSegment(p, q, clip)).filter(Boolean) : segments;
  };
  document.querySelectorAll(".llmfs-diagram-body svg").forEach((svg) => {
    if (!visible(svg) || svg.parentElement.closest("svg")) return;
    const box = svg.getBoundingClientRect();
    let shown = { left: box.left, right: box.right, top: box.top, bottom: box.bottom };
    const vb = svg.viewBox && svg.viewBox.baseVal;
    if (vb && vb.width && vb.height) {
      const ctm = svg.getScreenCTM();
      const a = new DOMPoint(vb.x, vb.y).matrixTransform(ctm), b = new DOMPoint(vb.x + vb.width, vb.y + vb.height).matrixTransform(ctm);
      shown = { left: Math.max(shown.left, Math.min(a.x, b.x)), right: Math.min(shown.right, Math.max(a.x, b.x)),
                top: Math.max(shown.top, Math.min(a.y, b.y)), bottom: Math.min(shown.bottom, Math.max(a.y, b.y)) };
    }
    const figure = describe(svg);
    const lines = [...svg.querySelectorAll("line, polyline, polygon, path")].filter((l) =>
      getComputedStyle(l).stroke !== "none" && !l.closest("defs, clipPath, marker"));
    const segments = lines.flatMap(segmentsOf);
    svg.querySelectorAll("text").forEach((text) => {
      const r = text.getBoundingClientRect();
      if (!r.width || !text.textContent.trim()) return;
      const words = text.textContent.trim().slice(0, 40);
      const tol = 0.5;
      if (r.left < shown.left - tol || r.right > shown.right + tol || r.top < shown.top - tol || r.bottom > shown.bottom + tol) {
        const by = Math.max(shown.left - r.left, r.right - shown.right, shown.top - r.top, r.bottom - shown.bottom);
        diagramText.push(`${figure}: "${words}" runs ${by.toFixed(1)} px outside its SVG`);
        return;
      }
      const clip = clipRect(text);
      if (clip && (r.left < clip.left - tol || r.right > clip.right + tol || r.top < clip.top - tol || r.bottom > clip.bottom + tol)) {
        diagramText.push(`${figure}: "${words}" is cut by its clip region`);
        return;
      }
      // The glyph box, shrunk by a pixel so that a line merely touching it does not count.
      const inner = { left: r.left + 1, right: r.right - 1, top: r.top + 1, bottom: r.bottom - 1 };
      if (segments.some(([p, q]) => clipSegment(p, q, inner))) diagramText.push(`${figure}: "${words}" is crossed by a drawn line`);
    });
  });

  const copyButtons = [...document.querySelectorAll("button.copybtn")].filter(visible).length;
  const theme = { attr: document.body.dataset.theme || "", bg: parse(getComputedStyle(document.body).backgroundColor),
                  ink: parse(getComputedStyle(document.body).color),
                  toggles: [...document.querySelectorAll(".theme-toggle")].filter(visible).length };
  // Large light boxes on a dark page (the hybrid the OS preference used to give)
  const lightBoxes = [];
  if (options.contrast && theme.bg && luminance(theme.bg) < 0.05) {
    article.querySelectorAll("*").forEach((el) => {
      const background = getComputedStyle(el).backgroundColor;
      if (background === "rgba(0, 0, 0, 0)") return;  // transparent: no box of its own
      const c = parse(background);
      if (c && c[3] > 0.5 && luminance(c) > 0.4 && visible(el)) {
        const r = el.getBoundingClientRect();
        if (r.width * r.height > 400) lightBoxes.push(`${el.tagName.toLowerCase()}.${el.className}`);
      }
    });
  }
  const result = {
    width: doc.clientWidth, pageOverflow: doc.scrollWidth - doc.clientWidth,
    listings: listings.length, outputs: outputs.length,
    listingOverflow: listings.filter(overflowing).map(describe),
    outputOverflow: outputs.filter(overflowing).map(describe),
    allPreOverflow: pres.filter(overflowing).map(describe),
    covered, wrapped, unmarked, badCopy, smallCaption, captionOverflow,
    apiLinks: apiLinks.length, proseApiLinks: proseApiLinks.length, diagrams, diagramText, copyButtons,
    contrast, theme, lightBoxes: lightBoxes.slice(0, 5), lightBoxCount: lightBoxes.length,
    noJs: doc.classList.contains("no-js"),
    math: document.querySelectorAll("span.math, div.math").length,
    mathScripts: document.querySelectorAll('script[type^="math/tex"]').length,
    mathRendered: document.querySelectorAll(".MathJax_CHTML").length,
    mathErrors: document.querySelectorAll(".MathJax_Error, .merror, mjx-merror").length,
    text: options.text ? (article.innerText || "") : "",
  };
  const skipped = { covered: ["covered"], lines: ["wrapped", "unmarked", "badCopy"],
                    captions: ["smallCaption", "captionOverflow"] };
  for (const name of skip) for (const key of skipped[name]) delete result[key];
  return result;
})(__OPTIONS__)
