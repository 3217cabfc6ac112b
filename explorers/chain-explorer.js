// Chain-rule explorer for z = x·y + y: the two paths from y to z, their
// contributions to dz/dy, their sum, and a finite-difference check.

import { assemble, fixed, labelled, mountEach, plotAndSummary, plotWidth,
  readData, slider, svgElement } from "./common.js";

export function z(x, y) {
  return x * y + y;
}

/** What each path from y to z contributes to dz/dy. */
export function contributions(x) {
  return { product: x, direct: 1, total: x + 1 };
}

/** The central difference (z(y + h) - z(y - h)) / 2h. */
export function finiteDifference(x, y, h = 1e-4) {
  return (z(x, y + h) - z(x, y - h)) / (2 * h);
}

/** One sentence with every number the explorer shows. */
export function describe(x, y) {
  const c = contributions(x);
  return `At x = ${fixed(x, 1)}, y = ${fixed(y, 1)}: the path through ` +
    `the product x·y contributes x = ${fixed(c.product, 2)}, the direct ` +
    `path contributes ${fixed(c.direct, 2)}, and their sum is ` +
    `dz/dy = ${fixed(c.total, 2)}. The finite difference gives ` +
    `${fixed(finiteDifference(x, y), 4)}.`;
}

const MARGIN = { left: 130, right: 60, top: 8, rowHeight: 52 };

/** Horizontal bars for the two contributions and their sum. */
export function drawBars(svg, x, range, width = 640) {
  const doc = svg.ownerDocument;
  const BOX = { ...MARGIN, width, height: 170 };
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${BOX.width} ${BOX.height}`);
  const c = contributions(x);
  const limit = Math.max(Math.abs(range.min), Math.abs(range.max)) + 1;
  const plotW = BOX.width - BOX.left - BOX.right;
  const zeroX = BOX.left + plotW / 2;
  const scale = plotW / 2 / limit;
  const rows = [["through x·y: x", c.product, "bar-product"],
    ["direct: 1", c.direct, "bar-direct"],
    ["sum: dz/dy", c.total, "bar-total"]];
  rows.forEach(([label, value, cls], i) => {
    const y = BOX.top + i * BOX.rowHeight;
    const width = Math.abs(value) * scale;
    svg.append(svgElement(doc, "text", { x: BOX.left - 10, y: y + 24,
      "text-anchor": "end", class: "label" }, label));
    svg.append(svgElement(doc, "rect", { x: value < 0 ? zeroX - width
      : zeroX, y: y + 8, width, height: 24, class: cls }));
    svg.append(svgElement(doc, "text", { x: zeroX + (value < 0 ? -width - 6
      : width + 6), y: y + 25, "text-anchor": value < 0 ? "end" : "start",
    class: "tick" }, fixed(value, 2)));
  });
  svg.append(svgElement(doc, "line", { x1: zeroX, x2: zeroX, y1: BOX.top,
    y2: BOX.top + 3 * BOX.rowHeight, class: "axis" }));
}

export function mount(root) {
  const doc = root.ownerDocument;
  const data = readData(root);
  const id = root.id || "chain-explorer";
  const [xIn, xOut] = slider(doc, `${id}-x`, data.range, data.x);
  const [yIn, yOut] = slider(doc, `${id}-y`, data.range, data.y);
  const [svg, summary] = plotAndSummary(doc, id);
  const update = () => {
    const x = Number(xIn.value);
    const y = Number(yIn.value);
    xOut.value = fixed(x, 1);
    yOut.value = fixed(y, 1);
    drawBars(svg, x, data.range, plotWidth(svg));
    summary.textContent = describe(x, y);
  };
  assemble(root, [labelled(doc, xIn, "x", xOut),
    labelled(doc, yIn, "y", yOut)], svg, summary, update);
}

mountEach('[data-explorer="chain"]', mount);
