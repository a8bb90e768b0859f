// A line chart of {t, value} points over the last minutes, drawn as plain SVG.

import { h, s } from "./dom.js";
import { WINDOW_MS } from "./history.js";

const WIDTH = 480;
const HEIGHT = 160;
const PAD = { left: 48, right: 12, top: 12, bottom: 22 };

function niceMax(value) {
  if (value <= 0) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * magnitude >= value);
  return step * magnitude;
}

function formatValue(value) {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}

/** A titled chart; `label` names it for tests and screen readers. Beside the title: `current` when given
 *  (a figure the worker reports now), else the latest point (samples are taken every few seconds). */
export function lineChart({ title, label, unit, points, current, now = Date.now(), windowMs = WINDOW_MS }) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const max = niceMax(Math.max(0, ...points.map((p) => p.value)));
  const x = (t) => PAD.left + plotW * (1 - Math.min(1, Math.max(0, (now - t) / windowMs)));
  const y = (v) => PAD.top + plotH * (1 - v / max);
  const grid = [0, 0.5, 1].map((f) => [
    s("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(max * f), y2: y(max * f), class: "grid" }),
    s("text", { x: PAD.left - 6, y: y(max * f) + 4, "text-anchor": "end", class: "tick" }, formatValue(max * f)),
  ]);
  const line = points.map((p, i) => `${i ? "L" : "M"}${x(p.t).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  const area = points.length > 1 ? `${line} L${x(points.at(-1).t).toFixed(1)},${y(0)} L${x(points[0].t).toFixed(1)},${y(0)} Z` : "";
  const last = points.length ? points.at(-1).value : null;
  const latest = current ?? last;
  const minutes = Math.round(windowMs / 60000);
  return h(
    "figure",
    { class: "chart", "data-chart": label },
    h("figcaption", {}, title, " ", h("span", { class: "latest" }, latest === null ? "–" : `${formatValue(latest)} ${unit}`)),
    s(
      "svg",
      { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": title },
      grid,
      s("text", { x: PAD.left, y: HEIGHT - 6, class: "tick" }, `−${minutes} min`),
      s("text", { x: WIDTH - PAD.right, y: HEIGHT - 6, "text-anchor": "end", class: "tick" }, "now"),
      area ? s("path", { d: area, class: "area" }) : null,
      line ? s("path", { d: line, class: "line" }) : null,
      last === null ? null : s("circle", { cx: x(points.at(-1).t), cy: y(last), r: 3, class: "dot" }),
    ),
  );
}
