// Runs inside a warm renderkit page. The engine calls window.__rk.render(...) for every
// template render: replacing the DOM of an already-loaded page (fonts decoded, CSS parsed)
// is an order of magnitude cheaper than navigating or calling setContent.
(() => {
  const root = () => document.getElementById("rk-root");

  function waitForImages(el, timeoutMs) {
    const imgs = Array.from(el.querySelectorAll("img"));
    return Promise.all(imgs.map((img) => new Promise((resolve, reject) => {
      const field = img.dataset.field || "image";
      if (img.complete && img.naturalWidth > 0) return resolve();
      if (img.complete && img.getAttribute("src")) return reject({ field, reason: "could not be loaded" });
      const timer = setTimeout(() => reject({ field, reason: `did not load within ${timeoutMs} ms` }), timeoutMs);
      img.addEventListener("load", () => { clearTimeout(timer); resolve(); }, { once: true });
      img.addEventListener("error", () => { clearTimeout(timer); reject({ field, reason: "could not be loaded" }); }, { once: true });
    })));
  }

  function overflows(el) {
    return el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
  }

  // The largest size in [lo, hi] at which el fits, to half-pixel precision; el fits at lo.
  function largestFitting(el, lo, hi) {
    while (hi - lo > 0.5) {
      const mid = (lo + hi) / 2;
      el.style.fontSize = `${mid}px`;
      if (overflows(el)) hi = mid; else lo = mid;
    }
    return lo;
  }

  // Shrink text marked data-fit until it fits its own box; below data-fit-min px, clamp lines
  // with an ellipsis instead, so a 300-character title never spills out of the card.
  // Words (and marked CJK phrases) are kept whole while shrinking can do it: only at the
  // minimum size may a word too long for the line break inside (overflow-wrap: anywhere).
  function fit(el) {
    const min = parseFloat(el.dataset.fitMin || "12");
    const size = parseFloat(getComputedStyle(el).fontSize);
    el.style.overflowWrap = "normal";
    if (!overflows(el)) {
      el.style.overflowWrap = "";
      return;
    }
    el.style.fontSize = `${min}px`;
    if (!overflows(el)) {
      // 1% back from the edge, as in grow(): a word a fraction of a pixel too wide would break
      // mid-word once overflow-wrap is restored.
      el.style.fontSize = `${Math.max(min, largestFitting(el, min, size) * 0.99)}px`;
      el.style.overflowWrap = "";
      return;
    }
    el.style.overflowWrap = "";
    if (!overflows(el)) {
      el.style.fontSize = `${largestFitting(el, min, size)}px`;
      return;
    }
    const lineHeight = parseFloat(getComputedStyle(el).lineHeight) || min * 1.2;
    const lines = Math.max(1, Math.floor(el.clientHeight / lineHeight));
    el.style.display = "-webkit-box";
    el.style.webkitBoxOrient = "vertical";
    el.style.webkitLineClamp = String(lines);
    el.style.overflow = "hidden";
  }

  // How many lines el's text takes: the distinct tops of its line boxes.
  function lineCount(el) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const tops = new Set();
    for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
    return tops.size;
  }

  // Grow text marked data-fit-max (a headline) towards that many px while it and everything
  // beside it still fits, so a two-word title fills the card instead of leaving it empty.
  // Runs after shrinking, so it only takes room that nothing else needs.
  function grow(el) {
    const max = parseFloat(el.dataset.fitMax || "0");
    const start = parseFloat(getComputedStyle(el).fontSize);
    if (!(max > start) || el.style.webkitLineClamp) return;
    const inline = el.style.fontSize;
    const others = Array.from(el.parentElement ? el.parentElement.children : []).filter((o) => o !== el);
    if (others.some(overflows)) return;
    // While searching, a word wider than the box must show as overflow instead of breaking
    // mid-word (the box allows that for long words at the normal size).
    el.style.overflowWrap = "normal";
    const fits = () => !overflows(el) && !others.some(overflows);
    const largest = (ok, lo, hi) => {
      el.style.fontSize = `${hi}px`;
      if (ok()) return hi;
      while (hi - lo > 0.5) {
        const mid = (lo + hi) / 2;
        el.style.fontSize = `${mid}px`;
        if (ok()) lo = mid; else hi = mid;
      }
      return lo;
    };
    const lines = lineCount(el);
    let lo = largest(fits, start, max);
    // Fill the width before wrapping: a title that grows onto more lines only does so when
    // that makes it clearly (a quarter) larger. Otherwise a two-word title beside a button
    // wraps onto two short lines and leaves half the banner empty.
    el.style.fontSize = `${lo}px`;
    if (lineCount(el) > lines) {
      const sameLines = largest(() => fits() && lineCount(el) <= lines, start, lo);
      if (lo < 1.25 * sameLines) lo = sameLines;
    }
    // 1% back from the edge: the box measures in whole pixels, and a word a fraction of a
    // pixel too wide would break mid-word once overflow-wrap is restored.
    const size = Math.max(start, lo * 0.99);
    el.style.fontSize = size === start ? inline : `${size}px`;
    el.style.overflowWrap = "";
  }

  window.__rk = {
    async render(html, width, height, imageTimeoutMs, title) {
      const el = root();
      // A document's title (PDF metadata) comes with its fragment: one round trip, not two.
      if (title != null) document.title = title;
      // Documents (PDFs) flow freely; images get a fixed box.
      el.style.width = width ? `${width}px` : "";
      el.style.height = height ? `${height}px` : "";
      el.innerHTML = html;
      await document.fonts.ready;
      try {
        await waitForImages(el, imageTimeoutMs);
      } catch (problem) {
        return { ok: false, field: problem.field, reason: problem.reason };
      }
      // Fit the outermost elements first: inner boxes depend on their parents' sizes.
      for (const node of el.querySelectorAll("[data-fit]")) fit(node);
      for (const node of el.querySelectorAll("[data-fit-max]")) grow(node);
      return { ok: true };
    },
  };
})();
