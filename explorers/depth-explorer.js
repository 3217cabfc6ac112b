// Depth explorer: per-layer gradient norms of a deep MLP, whether a
// float32 step would move its first layer, and how open its gates were.
// The numbers were computed by
// the book's Python package when the page was built (float64, seed 6050),
// with the same function that draws the chapter's static figure.

import { assemble, count, fixed, labelled, mountEach, plotAndSummary,
  plotWidth, power, readData, sci, slider, svgElement } from "./common.js";

/** The precomputed result for one setting of the three controls. */
export function runFor(data, activation, init, depth) {
  const run = data.runs[`${activation}|${init}`];
  const i = data.depths.indexOf(depth);
  if (i < 0) throw new RangeError(`no precomputed run of depth ${depth}`);
  return {
    norms: run.norms[i],
    changed: run.changed[i],
    nonzero: run.nonzero[i],
    gate: run.gate[i],
    closed: run.closed[i],
    size: data.size,
  };
}

/** A share as a whole percentage, with "under 1%" for a small nonzero one. */
export function percent(share) {
  if (share > 0 && share < 0.005) return "under 1%";
  return `${Math.round(100 * share)}%`;
}

/** Whole decades that cover the positive values: [lowest, highest]. */
export function decades(values) {
  const logs = values.filter((v) => v > 0).map(Math.log10);
  if (logs.length === 0) return [-1, 1];
  let lo = Math.floor(Math.min(...logs)) || 0; // "|| 0" turns -0 into 0
  let hi = Math.ceil(Math.max(...logs)) || 0;
  if (hi === lo) hi = lo + 1;
  return [lo, hi];
}

/** The vertical axis of an activation: whole decades that cover every
 * norm of every weight scale and depth, so that two settings of it plot
 * on one scale; only a change of activation changes it (the summary says
 * so). */
export function axisFor(data, activation) {
  const norms = Object.entries(data.runs)
    .filter(([key]) => key.startsWith(`${activation}|`))
    .flatMap(([, run]) => run.norms.flat());
  return decades(norms);
}

/** A ratio as plain decimals when moderate, else in powers of ten. */
export function amount(v) {
  return v >= 0.01 && v < 1000 ? fixed(v, 2) : sci(v);
}

/** One sentence that states what the plot shows, for every reader. */
export function describe(data, activation, init, depth) {
  const run = runFor(data, activation, init, depth);
  const first = run.norms[0];
  const last = run.norms[run.norms.length - 1];
  const layers = depth === 1 ? "1 hidden layer" : `${depth} hidden layers`;
  let text = `${data.labels.activation[activation]}, ` +
    `${data.labels.init[init]}, ${layers}: gradient norm ${sci(first)} ` +
    `at the first layer`;
  if (depth > 1) {
    text += ` and ${sci(last)} at the last`;
    if (first > 0 && last > 0) {
      text += ` (the first layer's norm is ${amount(first / last)} times ` +
        "the last layer's)";
    }
  }
  text += `. In float32, ${count(run.nonzero)} of the ${count(run.size)} ` +
    "first-layer gradient entries are nonzero, and one step with " +
    `learning rate ${data.lr} would change ${count(run.changed)} of the ` +
    "weights. Over every unit, example and layer, the gates ϕ′(z) average " +
    `${fixed(run.gate, 3)}, and ${percent(run.closed)} of them are below ` +
    `${data.closed}.`;
  const [lo, hi] = axisFor(data, activation);
  text += ` The plot's axis runs from ${power(lo)} to ${power(hi)}, for ` +
    "every weight scale and depth of this activation.";
  return text;
}

/** The decades labelled on an axis [lo, hi]: at most about nine, from the
 * top down, and the bottom always, in place of a label that would crowd
 * it, so that both ends of the range the summary states can be read. */
export function ticks(lo, hi) {
  const step = Math.max(1, Math.ceil((hi - lo) / 8));
  const found = [];
  for (let k = hi; k >= lo; k -= step) found.push(k);
  if (found.at(-1) !== lo) {  // the bottom, in place of a label too near
    if (found.at(-1) - lo < step / 2 && found.length > 2) found.pop();
    found.push(lo);
  }
  return found;
}

const MARGIN = { left: 76, right: 16, top: 16, bottom: 44 };

/** Draw the log-scale plot of one run into an empty <svg>, width wide,
 * on the axis [lo, hi] (in decades; by default the run's own). */
export function drawPlot(svg, norms, width = 640, axis = decades(norms)) {
  const doc = svg.ownerDocument;
  const BOX = { ...MARGIN, width, height: 300 };
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${BOX.width} ${BOX.height}`);
  const [lo, hi] = axis;
  const plotW = BOX.width - BOX.left - BOX.right;
  const plotH = BOX.height - BOX.top - BOX.bottom;
  const xAt = (i) => BOX.left + (norms.length === 1 ? plotW / 2
    : (i * plotW) / (norms.length - 1));
  const yAt = (v) => BOX.top + plotH * (hi - Math.log10(v)) / (hi - lo);
  for (const k of ticks(lo, hi)) {
    const y = yAt(10 ** k);
    svg.append(svgElement(doc, "line", { x1: BOX.left, x2: BOX.width -
      BOX.right, y1: y, y2: y, class: "grid" }));
    svg.append(svgElement(doc, "text", { x: BOX.left - 6, y: y + 4,
      "text-anchor": "end", class: "tick" }, power(k)));
  }
  const xStep = Math.max(1, Math.ceil(norms.length / 10));
  for (let i = 0; i < norms.length; i += xStep) {
    svg.append(svgElement(doc, "text", { x: xAt(i), y: BOX.height - 26,
      "text-anchor": "middle", class: "tick" }, String(i + 1)));
  }
  svg.append(svgElement(doc, "text", { x: BOX.left + plotW / 2,
    y: BOX.height - 6, "text-anchor": "middle", class: "label" },
  "layer (1 = closest to the input)"));
  const middle = BOX.top + plotH / 2;
  svg.append(svgElement(doc, "text", { x: 14, y: middle,
    transform: `rotate(-90 14 ${middle})`, "text-anchor": "middle",
    class: "label" }, "gradient norm of the layer's weights"));
  const points = norms.map((v, i) => (v > 0 ? [xAt(i), yAt(v)] : null))
    .filter((p) => p !== null);
  svg.append(svgElement(doc, "polyline", { class: "series",
    points: points.map((p) => p.join(",")).join(" ") }));
  for (const [x, y] of points) {
    svg.append(svgElement(doc, "circle", { cx: x, cy: y, r: 2.5,
      class: "series-point" }));
  }
}

function select(doc, id, options, value) {
  const sel = doc.createElement("select");
  sel.id = id;
  for (const [key, text] of Object.entries(options)) {
    sel.append(new Option(text, key, false, key === value));
  }
  return sel;
}

/** Build the controls, the plot and the live summary inside root. */
export function mount(root) {
  const doc = root.ownerDocument;
  const data = readData(root);
  const id = root.id || "depth-explorer";
  const act = select(doc, `${id}-activation`, data.labels.activation,
    data.start.activation);
  const init = select(doc, `${id}-init`, data.labels.init, data.start.init);
  // The slider steps through the precomputed depths, which need not be
  // evenly spaced: its value is a position in data.depths.
  const [depth, shown] = slider(doc, `${id}-depth`,
    { min: 0, max: data.depths.length - 1, step: 1 },
    data.depths.indexOf(data.start.depth));
  const [svg, summary] = plotAndSummary(doc, id);
  const update = () => {
    const d = data.depths[Number(depth.value)];
    shown.value = String(d);
    depth.setAttribute("aria-valuetext",
      `${d} hidden layer${d === 1 ? "" : "s"}`);
    drawPlot(svg, runFor(data, act.value, init.value, d).norms,
      plotWidth(svg), axisFor(data, act.value));
    summary.textContent = describe(data, act.value, init.value, d);
  };
  assemble(root, [labelled(doc, act, "Activation"),
    labelled(doc, init, "Weight scale"),
    labelled(doc, depth, "Depth (hidden layers)", shown)],
  svg, summary, update);
}

mountEach('[data-explorer="depth"]', mount);
