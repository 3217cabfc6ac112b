// The live cells' bookkeeping (explorers/live.js): which earlier cells a
// Run runs first.
import assert from "node:assert/strict";
import test from "node:test";

import { cellLabel, staleBefore } from "../../explorers/live.js";

function cell(label, text, ran = null) {
  return { label, ran, text: () => text };
}

test("cell labels lose Quarto's cell- prefix", () => {
  assert.equal(cellLabel("cell-check-tanh"), "check-tanh");
  assert.equal(cellLabel("starter-tanh"), "starter-tanh");
  assert.equal(cellLabel(undefined), "");
});

test("a Run first runs earlier cells not run in their current text", () => {
  const cells = [
    cell("engine-code", "class Value: ...", "class Value: ..."), // ran
    cell("starter-tanh", "def tanh(v): return v", "def tanh(v): None"),
    cell("cell-check-tanh", "check_tanh(tanh, Value)"), // a check: never
    cell("starter-value-ops", "def exp(v): ..."), // never ran
    cell("cell-check-value-ops", "check_value_ops(exp, log, power, Value)"),
  ];
  // a check runs its own starter, never another exercise's cells
  assert.deepEqual(staleBefore(cells, 4).map((c) => c.label),
    ["starter-value-ops"]);
  assert.deepEqual(staleBefore(cells, 2).map((c) => c.label),
    ["starter-tanh"]);
  assert.deepEqual(staleBefore(cells, 3), []); // a starter: only set-up
  assert.deepEqual(staleBefore(cells, 0), []);
});
