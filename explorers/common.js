// Small helpers shared by the explorers: SVG elements and number text.
// Plain ES module, no dependencies, so the pages work offline.

const SVG_NS = "http://www.w3.org/2000/svg";
const SUPERSCRIPT = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴",
  5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** An SVG element with the given attributes (and optional text). */
export function svgElement(doc, tag, attrs = {}, text = null) {
  const el = doc.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    el.setAttribute(key, String(value));
  }
  if (text !== null) el.textContent = text;
  return el;
}

/** 10 to an integer power, as text: power(-3) === "10⁻³". */
export function power(exponent) {
  return "10" + String(exponent).split("").map((c) => SUPERSCRIPT[c]).join("");
}

/** Scientific notation as in the book's prose: sci(0.00123) === "1.23 × 10⁻³". */
export function sci(x, digits = 2) {
  if (x === 0) return "0";
  let exponent = Math.floor(Math.log10(Math.abs(x)));
  let mantissa = x / 10 ** exponent;
  if (Math.abs(Number(mantissa.toFixed(digits))) >= 10) {
    mantissa /= 10;
    exponent += 1;
  }
  const sign = mantissa < 0 ? "−" : "";
  return `${sign}${Math.abs(mantissa).toFixed(digits)} × ${power(exponent)}`;
}

/** A number with a fixed count of decimals and a true minus sign. */
export function fixed(x, digits = 2) {
  return x.toFixed(digits).replace("-", "−");
}

/** An integer with thousands separators: count(4096) === "4,096". */
export function count(n) {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** The JSON data block that the book's Python cell wrote into root. */
export function readData(root) {
  const block = root.querySelector('script[type="application/json"]');
  return JSON.parse(block.textContent);
}

/** A control with its visible label (and any extra elements after it). */
export function labelled(doc, control, text, ...extra) {
  const wrap = doc.createElement("div");
  wrap.className = "explorer-control";
  const label = doc.createElement("label");
  label.htmlFor = control.id;
  label.textContent = text;
  wrap.append(label, control, ...extra);
  return wrap;
}

/** A range input with an <output> that shows its value. */
export function slider(doc, id, range, value) {
  const input = doc.createElement("input");
  Object.assign(input, { type: "range", id, min: range.min, max: range.max,
    step: range.step, value });
  const shown = doc.createElement("output");
  shown.htmlFor = id;
  return [input, shown];
}

/** The plot, and the live sentence that states what it shows. */
export function plotAndSummary(doc, id) {
  const summary = doc.createElement("p");
  summary.id = `${id}-summary`;
  summary.className = "explorer-summary";
  summary.setAttribute("aria-live", "polite");
  const svg = svgElement(doc, "svg", { role: "img", class: "explorer-plot",
    "aria-labelledby": summary.id });
  return [svg, summary];
}

/** The plot's width in CSS pixels, so that its text keeps its real size
 * on a phone: the drawing is made at the width it is shown at. */
export function plotWidth(svg, widest = 640, narrowest = 300) {
  const shown = svg.getBoundingClientRect ? svg.getBoundingClientRect().width
    : 0;
  if (!shown) return widest; // not laid out (e.g. under node --test)
  return Math.round(Math.min(widest, Math.max(narrowest, shown)));
}

/** Fill root with the controls (in a row), the plot and its summary, and
 * draw: now, at each change of a control (its input event bubbles to the
 * row), and whenever root changes width (a phone turned round). */
export function assemble(root, controls, svg, summary, update) {
  const row = root.ownerDocument.createElement("div");
  row.className = "explorer-controls";
  row.append(...controls);
  row.addEventListener("input", update);
  root.replaceChildren(row, svg, summary);
  root.dataset.ready = "true";
  update();
  if (typeof ResizeObserver === "undefined") return;
  let width = 0;
  new ResizeObserver((entries) => {
    const now = Math.round(entries[0].contentRect.width);
    if (now !== width) {
      width = now;
      update();
    }
  }).observe(root);
}

/** Mount each element of the page that selector finds (no page, under
 * node --test: none). */
export function mountEach(selector, mount) {
  if (typeof document === "undefined") return;
  for (const root of document.querySelectorAll(selector)) mount(root);
}
