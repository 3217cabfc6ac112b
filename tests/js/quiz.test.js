// The questions' widget: reading and grading a reply, with `node --test`.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TRIES, grade, parseNumber, progress, readings }
  from "../../explorers/quiz.js";

// numeric-bias asks for four decimals; ten-gates for three significant
const BIAS = { kind: "number", answer: 0.1689, tolerance: 0.00005,
  shown: "0.1689", digits: 4, significant: false };
const GATES = { kind: "number", answer: 0.25 ** 10,
  tolerance: 0.005 * 0.25 ** 10, shown: "9.54 × 10⁻⁷", digits: 3,
  significant: true };
const WHOLE = { kind: "number", answer: 32768, tolerance: 0.5,
  shown: "32,768", digits: 0, significant: false };
const MINUS = { kind: "number", answer: -10, tolerance: 0.05,
  shown: "−10.0", digits: 1, significant: false };

test("a typed number is read in the forms the book prints", () => {
  assert.equal(parseNumber("0.25"), 0.25);
  assert.equal(parseNumber("−10"), -10);
  assert.equal(parseNumber(" -10.0 "), -10);
  assert.equal(parseNumber("9.54e-7"), 9.54e-7);
  assert.equal(parseNumber("9.54 × 10⁻⁷"), 9.54e-7);
  assert.equal(parseNumber("9.54 x 10^-7"), 9.54e-7);
  assert.equal(parseNumber("1,048,576"), 1048576);
  assert.ok(Number.isNaN(parseNumber("ten")));
  assert.ok(Number.isNaN(parseNumber("1.2.3")));
});

test("a decimal comma is read as a decimal point", () => {
  assert.equal(parseNumber("0,1689"), 0.1689);
  assert.equal(parseNumber("−10,0"), -10);
  assert.equal(parseNumber("9,54e-7"), 9.54e-7);
  assert.equal(parseNumber("1.234,5"), 1234.5);
  assert.equal(parseNumber("1,234.5"), 1234.5);
  // "32,768" groups thousands or has a decimal comma: both are tried
  assert.deepEqual(readings("32,768").map((r) => r.value), [32768, 32.768]);
  assert.equal(grade(BIAS, "0,1689").verdict, "right");
  assert.equal(grade(WHOLE, "32,768").verdict, "right");
  assert.equal(grade(MINUS, "−10,0").verdict, "right");
});

test("spaces and a leading plus are read kindly", () => {
  assert.equal(parseNumber("  0.25  "), 0.25);
  assert.equal(parseNumber("+0.25"), 0.25);
  assert.equal(parseNumber("+ 0.25"), 0.25);
  assert.equal(parseNumber("- 10"), -10);
  assert.equal(parseNumber("32 768"), 32768);
  assert.equal(parseNumber("32\u202f768"), 32768); // a narrow space
  assert.equal(grade(BIAS, " +0.1689 ").verdict, "right");
  assert.equal(grade(BIAS, "0. 1689").verdict, "right");
});

test("an empty answer asks for one and is no wrong try", () => {
  for (const reply of ["", "   ", "\t"]) {
    const result = grade(BIAS, reply);
    assert.equal(result.verdict, "empty");
    assert.match(result.text, /^Type your answer/);
    assert.deepEqual(progress(result.verdict, 1),
      { wrong: 1, hint: false, offer: false });
  }
  assert.equal(grade({ kind: "choice", right: 1 }, -1).verdict, "empty");
  assert.equal(grade(BIAS, "ten").verdict, "unreadable");
  assert.match(grade(BIAS, "ten").text, /^Enter a number/);
});

test("too few digits asks for more, and is neither right nor wrong", () => {
  assert.equal(readings("0.17")[0].decimals, 2);
  assert.equal(readings("9.5e-7")[0].decimals, 8);
  assert.equal(readings("9.5e-7")[0].significant, 2);
  assert.equal(readings("0.000954")[0].significant, 3);
  assert.deepEqual(grade(BIAS, "0.17"), { verdict: "precision",
    text: "Give 4 decimals: 0.17 agrees with the answer as far as it goes." });
  assert.equal(grade(BIAS, "0,169").verdict, "precision");
  assert.match(grade(GATES, "1e-6").text, /^Give 3 significant digits:/);
  assert.equal(grade(GATES, "9.6e-7").verdict, "wrong");
  assert.match(grade(WHOLE, "32.8e3").text, /^Give the whole number:/);
  // too few digits, and wrong in those: wrong
  assert.equal(grade(BIAS, "0.18").verdict, "wrong");
  assert.equal(grade(BIAS, "0").verdict, "wrong"); // zero means zero
  // enough digits but wrong, or more than asked and right
  assert.equal(grade(BIAS, "0.1690").verdict, "wrong");
  assert.equal(grade(BIAS, "0.16894").verdict, "right");
  // a whole number is right when it is the answer to the digits asked
  assert.equal(grade(MINUS, "-10").verdict, "right");
  assert.equal(grade(MINUS, "10").verdict, "wrong");
  assert.equal(progress("precision", 1).wrong, 1);
});

test("grading says right or wrong, and what was shown", () => {
  const choice = { kind: "choice", right: 1 };
  assert.deepEqual(grade(choice, 1), { verdict: "right", text: "Right." });
  assert.deepEqual(grade(choice, 0), { verdict: "wrong", text: "Not quite." });
  assert.deepEqual(grade(BIAS, "0.1689"),
    { verdict: "right", text: "Right: 0.1689." });
  assert.equal(grade(GATES, "9.54 × 10⁻⁷").verdict, "right");
  assert.equal(grade(GATES, "9.54e-7").text, "Right: 9.54 × 10⁻⁷.");
});

test("after two wrong tries the hint, and then the answer, are offered",
  () => {
    assert.equal(TRIES, 2);
    let step = progress("wrong", 0);
    assert.deepEqual(step, { wrong: 1, hint: false, offer: false });
    step = progress("wrong", step.wrong);
    assert.deepEqual(step, { wrong: 2, hint: true, offer: true });
    assert.deepEqual(progress("empty", 2),
      { wrong: 2, hint: false, offer: true });
    assert.equal(progress("right", 2).offer, false);
  });
