// Logic of the explorers, run with `node --test` (no browser needed).
import assert from "node:assert/strict";
import { test } from "node:test";

import { count, fixed, power, sci } from "../../explorers/common.js";
import { amount, axisFor, decades, describe, percent, runFor, ticks }
  from "../../explorers/depth-explorer.js";
import { describe as describeStep, filled, layout }
  from "../../explorers/step-explorer.js";

test("number text matches the book's prose style", () => {
  assert.equal(power(-3), "10⁻³");
  assert.equal(power(15), "10¹⁵");
  assert.equal(sci(0.00123), "1.23 × 10⁻³");
  assert.equal(sci(-0.0123, 1), "−1.2 × 10⁻²");
  assert.equal(sci(9.999e-3), "1.00 × 10⁻²");
  assert.equal(sci(0), "0");
  assert.equal(fixed(-3, 1), "−3.0");
  assert.equal(count(4096), "4,096");
});

// The diamond at x = 1, worked by hand: s = 3, u = 2s = 6, v = s² = 9,
// out = 15; backward: out 1, then v and u 1 each, s = 1·6 + 1·2 = 8 (two
// routes), x = 3·8 = 24.
const DIAMOND = {
  title: "The diamond", formula: "out = 2s + s²", digits: 0, output: "out",
  nodes: [{ name: "x", value: 1, col: 0, row: 1 },
    { name: "s", value: 3, col: 1, row: 1 },
    { name: "u", value: 6, col: 2, row: 0 },
    { name: "v", value: 9, col: 2, row: 2 },
    { name: "out", value: 15, col: 3, row: 1 }],
  edges: [["x", "s"], ["s", "u"], ["s", "v"], ["u", "out"], ["v", "out"]],
  steps: [{ node: "out", grad: 1, terms: [] },
    { node: "v", grad: 1, terms: [{ from: "out", local: 1, upstream: 1,
      rule: "1" }] },
    { node: "u", grad: 1, terms: [{ from: "out", local: 1, upstream: 1,
      rule: "1" }] },
    { node: "s", grad: 8, terms: [
      { from: "v", local: 6, upstream: 1, rule: "2s" },
      { from: "u", local: 2, upstream: 1, rule: "2" }] },
    { node: "x", grad: 24, terms: [{ from: "s", local: 3, upstream: 8,
      rule: "3" }] }],
};

test("each step of the backward pass says its rule and its numbers", () => {
  assert.match(describeStep(DIAMOND, 0),
    /^The diamond: out = 2s \+ s²\. The forward .* 5 steps, one node each/);
  assert.equal(describeStep(DIAMOND, 1), "Step 1 of 5, node out: the " +
    "backward pass starts at the output, with ∂out/∂out = 1.");
  assert.equal(describeStep(DIAMOND, 4), "Step 4 of 5, node s: ∂out/∂s = " +
    "1 × 6 + 1 × 2 = 8, the gradient at v times the local derivative 2s, " +
    "plus the gradient at u times the local derivative 2. s feeds 2 " +
    "nodes, so the routes add.");
  assert.equal(describeStep(DIAMOND, 5), "Step 5 of 5, node x: ∂out/∂x = " +
    "8 × 3 = 24, the gradient at s times the local derivative 3. Every " +
    "gradient is filled in.");
});

test("a node's gradient is shown from its own step on", () => {
  assert.deepEqual([...filled(DIAMOND, 0)], []);
  assert.deepEqual([...filled(DIAMOND, 3)], ["out", "v", "u"]);
  assert.equal(filled(DIAMOND, 5).size, 5);
});

test("the boxes never overlap or leave the plot, on a phone or a wide page",
  () => {
  for (const width of [300, 640]) {
    const { at, box, high } = layout(DIAMOND, width);
    const places = Object.values(at);
    for (const a of places) {
      // inside by half the current node's 3.5-px border, or more
      assert.ok(a.x >= 1.75 && a.x + box <= width - 1.75);
      for (const b of places) {
        if (a === b) continue;
        assert.ok(Math.abs(a.x - b.x) >= box + 8 ||
          Math.abs(a.y - b.y) >= high + 8);
      }
    }
  }
});

const DATA = {
  depths: [1, 3],
  size: 4096,
  lr: 0.1,
  closed: 0.01,
  labels: { activation: { relu: "ReLU" }, init: { he: "He" } },
  start: { activation: "relu", init: "he", depth: 3 },
  runs: {
    "relu|he": {
      norms: [[0.5], [1e-15, 0.3, 2.0]],
      changed: [4096, 17],
      nonzero: [4096, 4096],
      gate: [0.5, 0.0475],
      closed: [0.5, 0.578],
    },
  },
};

test("each setting selects its own precomputed run", () => {
  const run = runFor(DATA, "relu", "he", 3);
  assert.deepEqual(run.norms, [1e-15, 0.3, 2.0]);
  assert.equal(run.changed, 17);
  assert.equal(runFor(DATA, "relu", "he", 1).changed, 4096);
  assert.equal(run.gate, 0.0475);
  assert.equal(run.closed, 0.578);
  // the depths need not be consecutive, and a missing one is an error
  assert.throws(() => runFor(DATA, "relu", "he", 2), RangeError);
});

test("ratios read as decimals when moderate", () => {
  assert.equal(amount(1.7), "1.70");
  assert.equal(amount(0.25), "0.25");
  assert.equal(amount(5e-16), "5.00 × 10⁻¹⁶");
  assert.equal(amount(2e4), "2.00 × 10⁴");
});

test("the log axis covers every positive value in whole decades", () => {
  assert.deepEqual(decades([1e-15, 2.0]), [-15, 1]);
  assert.deepEqual(decades([0.5]), [-1, 0]);
  assert.deepEqual(decades([0, 0]), [-1, 1]);
});

test("the summary states the result in words", () => {
  const text = describe(DATA, "relu", "he", 3);
  assert.match(text, /^ReLU, He, 3 hidden layers/);
  assert.match(text, /1\.00 × 10⁻¹⁵ at the first layer and 2\.00 × 10⁰/);
  assert.match(text, /first layer's norm is 5\.00 × 10⁻¹⁶ times/);
  assert.match(text, /4,096 of the 4,096 first-layer gradient entries/);
  assert.match(text, /would change 17 of the weights/);
  assert.match(describe(DATA, "relu", "he", 1), /1 hidden layer:/);
  assert.match(text,
    /gates ϕ′\(z\) average 0\.048, and 58% of them are below 0\.01\. /);
  // and the axis it is drawn on, the same for every run of the activation
  assert.match(text, /axis runs from 10⁻¹⁵ to 10¹, for every weight scale/);
  assert.match(describe(DATA, "relu", "he", 1), /from 10⁻¹⁵ to 10¹/);
});

test("one activation keeps one axis across weight scales and depths", () => {
  const data = { ...DATA, runs: { ...DATA.runs,
    "relu|naive": { norms: [[1e3], [1e-2, 1, 10]] },
    "sigmoid|he": { norms: [[1e-30], [1e-40, 1e-35, 1e-30]] } } };
  // the depth-1 run alone spans one decade; it plots on all of ReLU's
  assert.deepEqual(decades(runFor(data, "relu", "he", 1).norms), [-1, 0]);
  assert.deepEqual(axisFor(data, "relu"), [-15, 3]);
  assert.deepEqual(axisFor(data, "sigmoid"), [-40, -30]);
});

test("shares read as whole percentages", () => {
  assert.equal(percent(0.578), "58%");
  assert.equal(percent(0), "0%");
  assert.equal(percent(0.002), "under 1%");
  assert.equal(percent(1), "100%");
});

test("an axis labels both ends of its range, and at most about nine", () => {
  // sigmoid's range, -31 to 3: its top was unlabelled (10^-1 the highest)
  const shown = ticks(-31, 3);
  assert.equal(shown[0], 3);
  assert.equal(shown.at(-1), -31);
  assert.ok(shown.length <= 10);
  assert.deepEqual(ticks(-1, 0), [0, -1]);
  assert.deepEqual(ticks(-9, 0), [0, -2, -4, -6, -8, -9]);
  // a label less than half a step above the bottom gives way to it
  assert.deepEqual(ticks(-22, 3), [3, -1, -5, -9, -13, -17, -22]);
});
