// The peer of bench_image.py: renderkit's og-card drawn by Takumi (@takumi-rs/core 2.16.3, a
// native Rust renderer, no browser), timed inside Node so only the render is measured.
//
//   node bench/takumi_og.mjs FONT_DIR      (run where node_modules holds @takumi-rs/core)
//
// Reads commands on stdin, one per line, and answers each with one JSON line, so the
// benchmark can interleave it with renderkit round by round:
//   once SCALE                   -> {"ms": ...}         one render of the card
//   burst CLIENTS TOTAL SCALE    -> {"rate": ..., "p95_ms": ...}  TOTAL distinct cards, CLIENTS at once
//   save PATH SCALE              -> {"bytes": ...}      write one render to PATH
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";

const require = createRequire(join(process.cwd(), "noop.js"));
const { Renderer } = require("@takumi-rs/core");

const [fontDir] = process.argv.slice(2);
const WEIGHTS = { Regular: 400, Medium: 500, SemiBold: 600, Bold: 700, ExtraBold: 800 };

// renderkit's og-card (dark theme) in Takumi's terms: accent bar, corner glows, a hairline
// grid, the tag pill, the fitted headline, subtitle, rule and domain.
const GLOWS = [
  "radial-gradient(ellipse 700px 520px at 100% 0%, rgba(79,70,229,0.32), rgba(79,70,229,0) 70%)",
  "radial-gradient(ellipse 600px 360px at 80% 100%, rgba(147,51,234,0.22), rgba(147,51,234,0) 70%)",
].join(", ");
// Like renderkit's, the grid shows only in the top right corner, where it fades out.
const GRID = [
  "repeating-linear-gradient(90deg, rgba(255,255,255,0.05) 0 1px, rgba(255,255,255,0) 1px 56px)",
  "repeating-linear-gradient(0deg, rgba(255,255,255,0.05) 0 1px, rgba(255,255,255,0) 1px 56px)",
].join(", ");

function card(title) {
  const text = (t, style) => ({ type: "text", text: t, style });
  const dot = (size) => ({
    type: "container",
    style: { width: `${size}px`, height: `${size}px`, borderRadius: "999px", backgroundColor: "#6366f1" },
  });
  return {
    type: "container",
    style: {
      width: "100%", height: "100%", display: "flex", flexDirection: "column",
      padding: "120px 80px 56px", backgroundColor: "#05050a", backgroundImage: GLOWS,
      color: "#f8f8fc", fontFamily: "Inter", position: "relative",
    },
    children: [
      {
        type: "container",
        style: {
          position: "absolute", top: 0, right: 0, width: "560px", height: "340px",
          backgroundImage: GRID,
        },
      },
      {
        type: "container",
        style: {
          position: "absolute", top: 0, left: 0, width: "100%", height: "6px",
          backgroundImage: "linear-gradient(90deg, #4f46e5, #9333ea)",
        },
      },
      {
        type: "container",
        style: {
          display: "flex", alignItems: "center", gap: "12px", alignSelf: "flex-start",
          padding: "8px 18px", borderRadius: "999px", border: "1px solid rgba(99,102,241,0.4)",
          backgroundColor: "rgba(99,102,241,0.12)",
        },
        children: [dot(10), text("RELEASE 1.0", { fontSize: "19px", fontWeight: 600, color: "#a5a8f8", letterSpacing: "1.5px" })],
      },
      text(title, { marginTop: "36px", fontSize: "92px", fontWeight: 800, lineHeight: 1.05, letterSpacing: "-2.5px" }),
      text("Images, PDFs, screenshots, speech and parsing behind one API.", {
        marginTop: "28px", fontSize: "34px", color: "#9a9aa8",
      }),
      { type: "container", style: { marginTop: "auto", height: "1px", backgroundColor: "rgba(255,255,255,0.12)" } },
      {
        type: "container",
        style: { display: "flex", alignItems: "center", gap: "14px", marginTop: "28px" },
        children: [dot(9), text("renderkit.dev", { fontSize: "22px", fontWeight: 500, color: "#9a9aa8" })],
      },
    ],
  };
}

const renderer = new Renderer();
// The card's text is all Latin: the packaged Latin file of each weight holds every glyph of it.
for (const [name, weight] of Object.entries(WEIGHTS)) {
  const data = readFileSync(join(fontDir, `Inter-${name}-latin.woff2`));
  await renderer.registerFont({ name: "Inter", data, weight });
}
// Takumi's width and height are the output's pixels; the pixel ratio scales the CSS.
const options = (scale) => ({
  width: 1200 * scale, height: 630 * scale, format: "png", devicePixelRatio: scale,
});
const TITLE = "Render anything from JSON, in milliseconds";
const p95 = (xs) => [...xs].sort((a, b) => a - b)[Math.ceil(xs.length * 0.95) - 1];

async function burst(clients, total, scale) {
  let next = 0;
  const latencies = [];
  const client = async () => {
    while (next < total) {
      const n = next++;
      const t = performance.now();
      await renderer.render(card(`${TITLE} #${n}`), options(scale));
      latencies.push(performance.now() - t);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, client));
  return { rate: total / ((performance.now() - started) / 1000), p95_ms: p95(latencies) };
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, ...args] = line.trim().split(/\s+/);
  let answer;
  if (command === "once") {
    const t = performance.now();
    await renderer.render(card(TITLE), options(Number(args[0])));
    answer = { ms: performance.now() - t };
  } else if (command === "burst") {
    answer = await burst(Number(args[0]), Number(args[1]), Number(args[2]));
  } else if (command === "save") {
    const png = await renderer.render(card(TITLE), options(Number(args[1])));
    writeFileSync(args[0], png);
    answer = { bytes: png.length };
  } else {
    answer = { error: `unknown command ${command}` };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
