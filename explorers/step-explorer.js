// Step-through explorer: a backward pass on a small graph, one node at a
// time, in reverse topological order. Each step completes one node's
// gradient from the gradients of its consumers, and says which local
// rule it used and which numbers it multiplied. The numbers come from the
// book's Value engine, computed when the book is built.

import { assemble, fixed, labelled, mountEach, plotAndSummary, plotWidth,
  readData, svgElement } from "./common.js";

/** ∂out/∂name, as plain text. */
export function partial(out, name) {
  return `∂${out}/∂${name}`;
}

/** The names whose gradients are known after `step` steps. */
export function filled(graph, step) {
  return new Set(graph.steps.slice(0, step).map((s) => s.node));
}

/** One sentence (or two) for the state after `step` steps. */
export function describe(graph, step) {
  const n = graph.steps.length;
  const out = graph.output;
  const show = (x) => fixed(x, graph.digits);
  if (step === 0) {
    return `${graph.title}: ${graph.formula}. The forward pass has run, ` +
      "and every node holds " +
      `its value. Step through the backward pass: ${n} steps, one node ` +
      "each.";
  }
  const { node, grad, terms } = graph.steps[step - 1];
  let text = `Step ${step} of ${n}, node ${node}: `;
  if (terms.length === 0) {
    text += `the backward pass starts at the output, with ` +
      `${partial(out, out)} = 1.`;
  } else {
    const numbers = terms.map((t) => `${show(t.upstream)} × ` +
      `${show(t.local)}`).join(" + ");
    // in words: ∂L/∂a = ∂L/∂L × ∂L/∂a would use one symbol for two things
    const routes = terms.map((t) => `the gradient at ${t.from} times the ` +
      `local derivative ${t.rule}`).join(", plus ");
    text += `${partial(out, node)} = ${numbers} = ${show(grad)}, ${routes}.`;
    if (terms.length > 1) {
      text += ` ${node} feeds ${terms.length} nodes, so the routes add.`;
    }
  }
  if (step === n) text += " Every gradient is filled in.";
  return text;
}

/** Where each node sits, and how big its box and text are, at a width:
 * the boxes share the width with the gaps between them. */
export function layout(graph, width) {
  const columns = Math.max(...graph.nodes.map((n) => n.col)) + 1;
  const rows = Math.max(...graph.nodes.map((n) => n.row)) + 1;
  const box = Math.min(80, 0.84 * width / (columns - 0.16));
  const font = Math.min(13, Math.max(10, box / 5.4));
  const high = 4.6 * font;
  const rowGap = high + 16;
  // 2 px in from each side: the current node's heavy border stays whole
  const gap = (width - box - 4) / Math.max(columns - 1, 1);
  const at = Object.fromEntries(graph.nodes.map((n) => [n.name, {
    x: 2 + n.col * gap, y: 8 + n.row * rowGap }]));
  return { at, box, high, font, height: 16 + (rows - 1) * rowGap + high };
}

/** The graph after `step` steps: each node with its value, and its
 * gradient once its step has come; the current node and the edges its
 * gradient came back along are drawn heavier. */
export function drawGraph(svg, graph, step, width = 640) {
  const doc = svg.ownerDocument;
  const { at, box, high, font, height } = layout(graph, width);
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const defs = svgElement(doc, "defs");
  for (const kind of ["arrow", "arrow-back"]) { // a back edge's in its colour
    const marker = svgElement(doc, "marker", { id: `${svg.id}-${kind}`,
      viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 8,
      markerHeight: 8, markerUnits: "userSpaceOnUse",
      orient: "auto-start-reverse" });
    marker.append(svgElement(doc, "path", { d: "M 0 0 L 10 5 L 0 10 z",
      class: kind }));
    defs.append(marker);
  }
  svg.append(defs);
  const known = filled(graph, step);
  const current = step > 0 ? graph.steps[step - 1] : null;
  const back = new Set((current ? current.terms : []).map((t) => t.from));
  for (const [from, to] of graph.edges) {
    const active = current && from === current.node && back.has(to);
    // forward, an arrow into the consumer; the way a gradient came
    // back, an arrow into the node it completed
    svg.append(svgElement(doc, "line", { x1: at[from].x + box,
      y1: at[from].y + high / 2, x2: at[to].x, y2: at[to].y + high / 2,
      class: active ? "edge edge-back" : "edge",
      [active ? "marker-start" : "marker-end"]:
        `url(#${svg.id}-${active ? "arrow-back" : "arrow"})` }));
  }
  for (const node of graph.nodes) {
    const { x, y } = at[node.name];
    const isCurrent = current && current.node === node.name;
    const grad = graph.steps.find((s) => s.node === node.name).grad;
    svg.append(svgElement(doc, "rect", { x, y, width: box, height: high,
      rx: 6, class: isCurrent ? "node node-current" : "node" }));
    const lines = [[node.name, "node-name"],
      [fixed(node.value, graph.digits), "node-value"],
      known.has(node.name) ? [fixed(grad, graph.digits), "node-grad"]
        : ["?", "node-grad node-unknown"]];
    lines.forEach(([text, kind], i) => {
      svg.append(svgElement(doc, "text", { x: x + box / 2,
        y: y + (1.25 + 1.3 * i) * font, "text-anchor": "middle",
        style: `font-size: ${font.toFixed(1)}px`, class: `label ${kind}` },
      text));
    });
  }
}

function button(doc, id, text) {
  const made = doc.createElement("button");
  Object.assign(made, { type: "button", id, textContent: text });
  return made;
}

export function mount(root) {
  const doc = root.ownerDocument;
  const data = readData(root);
  const id = root.id || "step-explorer";
  const choice = doc.createElement("select");
  choice.id = `${id}-graph`;
  data.graphs.forEach((graph, i) => {
    choice.append(new Option(graph.title, String(i)));
  });
  const backButton = button(doc, `${id}-back`, "Back");
  const stepButton = button(doc, `${id}-step`, "Step");
  const [svg, summary] = plotAndSummary(doc, id);
  svg.id = `${id}-plot`;
  let shown = -1;
  let step = 0;
  const update = () => {
    const index = Number(choice.value);
    if (index !== shown) [shown, step] = [index, 0];
    const graph = data.graphs[index];
    drawGraph(svg, graph, step, plotWidth(svg));
    summary.textContent = describe(graph, step);
  };
  const move = (by) => {
    const last = data.graphs[Number(choice.value)].steps.length;
    const to = Math.min(last, Math.max(0, step + by));
    if (to === step) { // said, since the same sentence again says nothing
      summary.textContent = to === last ? "That was the last step: Back " +
        "goes back, or choose the other graph." : "This is the start: " +
        "Step begins the backward pass.";
      return;
    }
    step = to;
    update();
  };
  backButton.addEventListener("click", () => move(-1));
  stepButton.addEventListener("click", () => move(1));
  // the arrow keys step too, anywhere in the explorer but in its menu
  root.addEventListener("keydown", (event) => {
    if (event.target === choice) return;
    const by = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
    if (by) {
      event.preventDefault();
      move(by);
    }
  });
  const buttons = doc.createElement("div");
  buttons.className = "explorer-control explorer-buttons";
  buttons.append(backButton, stepButton);
  assemble(root, [labelled(doc, choice, "Graph"), buttons], svg, summary,
    update);
}

mountEach('[data-explorer="step"]', mount);
