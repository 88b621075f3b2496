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

  // Whether a and b are the same tree of nodes (names and nesting; text and attributes may
  // differ).
  function sameShape(a, b) {
    if (a.nodeType !== b.nodeType || a.nodeName !== b.nodeName) return false;
    return sameChildren(a, b);
  }

  function sameChildren(a, b) {
    const ours = a.childNodes, theirs = b.childNodes;
    if (ours.length !== theirs.length) return false;
    for (let i = 0; i < ours.length; i++) if (!sameShape(ours[i], theirs[i])) return false;
    return true;
  }

  // Make a's attributes and text those of b, a tree of the same shape. Inline styles that
  // fit() and grow() set go too: the style attribute becomes the fragment's again.
  function patch(a, b) {
    if (a.nodeType !== Node.ELEMENT_NODE) {
      if (a.data !== b.data) a.data = b.data;
      return;
    }
    if (a instanceof HTMLImageElement && a.complete && a.naturalWidth === 0) {
      // An image that failed keeps failing without asking again: a new one asks again, as a
      // fresh tree would (a logo's server was down a moment; a refused address is refused
      // anew, and named).
      a.replaceWith(document.importNode(b, true));
      return;
    }
    for (const name of a.getAttributeNames()) if (!b.hasAttribute(name)) a.removeAttribute(name);
    for (const name of b.getAttributeNames()) {
      const value = b.getAttribute(name);
      if (a.getAttribute(name) !== value) a.setAttribute(name, value);
    }
    patchChildren(a, b);
  }

  function patchChildren(a, b) {
    for (let i = 0; i < a.childNodes.length; i++) patch(a.childNodes[i], b.childNodes[i]);
  }

  // Put html's nodes into el. A fragment of the same shape as the one shown (the same
  // template with the same fields, e.g. the next og-card) only changes the nodes that differ:
  // the elements, their styles and the shaped text of what stayed are kept, and Chromium
  // re-rasters only the area that changed. Measured (issue #30): half the style and layout
  // time and 10% of the whole og-card render, with the same pixels as a fresh tree.
  const parser = document.createElement("template");
  function show(el, html) {
    parser.innerHTML = html;
    const fresh = parser.content;
    if (el.childNodes.length && sameChildren(el, fresh)) {
      patchChildren(el, fresh);
      parser.innerHTML = "";
    } else {
      el.replaceChildren(fresh);
    }
  }

  window.__rk = {
    async render(html, width, height, imageTimeoutMs, title) {
      const el = root();
      // A document's title (PDF metadata) comes with its fragment: one round trip, not two.
      if (title != null) document.title = title;
      // Documents (PDFs) flow freely; images get a fixed box.
      el.style.width = width ? `${width}px` : "";
      el.style.height = height ? `${height}px` : "";
      show(el, html);
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
