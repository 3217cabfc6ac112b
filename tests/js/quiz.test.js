// The questions' widget: reading and grading a reply, with `node --test`.
// Each question is written as quiz.py writes it into the page: the answer
// rounded to the digits asked, as a decimal string, here rounded by hand
// from the value the chapter computes.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TRIES, grade, progress, readings } from "../../explorers/quiz.js";

const number = (answer, shown, digits, more = {}) => ({ kind: "number",
  answer, shown, digits, significant: false, count: null, ...more });
// backward-ratio: 2 − 4096/8256 = 1.50387…, asked to two decimals
const RATIO = number("1.50", "1.50", 2);
// saved-per-layer: 128 × 64 float32 numbers of 4 bytes, a count
const BYTES = number("32768", "32,768", 0, { count: "bytes" });
// mul-gradient: 5 × (−2), asked to one decimal
const MINUS = number("-10.0", "−10.0", 1);
// numeric-bias: (σ(0.9) − 0.1) σ(0.9)(1 − σ(0.9)) = 0.125550…, four decimals
const BIAS = number("0.1256", "0.1256", 4);
// ten-gates: 0.25¹⁰ = 9.5367…e-7, three significant digits
const GATES = number("9.54e-7", "9.54 × 10⁻⁷", 3, { significant: true });
// linear-default: about a sixth, two decimals
const SIXTH = number("0.17", "0.17", 2);

const verdict = (q, reply) => grade(q, reply).verdict;
const CLOSE = { verdict: "close", text: "Close: check your rounding." };

test("the five verdicts an outside trial measured are fixed", () => {
  assert.equal(verdict(RATIO, "1.51"), "close"); // was right
  assert.equal(verdict(BYTES, "32,767"), "wrong"); // was right
  assert.equal(verdict(BYTES, "32,769"), "wrong"); // was right
  assert.equal(verdict(MINUS, "−10.1"), "close"); // was right
  assert.equal(verdict(MINUS, "−9.9"), "close"); // was right
  assert.equal(verdict(BIAS, "0.1255"), "close"); // was right
  assert.equal(verdict(BIAS, "0.1257"), "close"); // was wrong: one unit too
  assert.equal(verdict(GATES, "9.5e-7"), "precision"); // was right
  assert.match(grade(GATES, "9.5e-7").text, /^Give 3 significant digits:/);
});

test("right is the answer rounded to the digits asked, one unit either "
  + "side is close, two units are wrong", () => {
  for (const [q, right, below, above, twoOff] of [
    [RATIO, "1.50", "1.49", "1.51", "1.52"],
    [BIAS, "0.1256", "0.1255", "0.1257", "0.1254"],
    [MINUS, "-10.0", "-10.1", "-9.9", "-9.8"],
    [GATES, "9.54e-7", "9.53e-7", "9.55e-7", "9.56e-7"],
    [SIXTH, "0.17", "0.16", "0.18", "0.19"],
  ]) {
    assert.deepEqual(grade(q, right),
      { verdict: "right", text: `Right: ${q.shown}.` });
    assert.deepEqual(grade(q, below), CLOSE, below);
    assert.deepEqual(grade(q, above), CLOSE, above);
    assert.equal(verdict(q, twoOff), "wrong", twoOff);
  }
  assert.equal(verdict(RATIO, "1.48"), "wrong");
  assert.equal(verdict(MINUS, "-10.2"), "wrong");
});

test("more digits are right if they round to the answer, close or wrong "
  + "if they round to something else", () => {
  assert.equal(verdict(RATIO, "1.5039"), "right"); // the value itself
  assert.equal(verdict(RATIO, "1.504"), "right");
  assert.equal(verdict(RATIO, "1.4951"), "right"); // rounds up to 1.50
  assert.equal(verdict(RATIO, "1.506"), "close"); // rounds to 1.51
  assert.equal(verdict(RATIO, "1.494"), "close"); // rounds to 1.49
  assert.equal(verdict(RATIO, "1.516"), "wrong"); // rounds to 1.52
  assert.equal(verdict(BIAS, "0.125550"), "right");
  assert.equal(verdict(BIAS, "0.12549"), "close"); // rounds to 0.1255
  assert.equal(verdict(GATES, "9.5367e-7"), "right");
  assert.equal(verdict(GATES, "0.00000095367"), "right");
  assert.equal(verdict(GATES, "9.5349e-7"), "close"); // rounds to 9.53
  assert.equal(verdict(MINUS, "-10.04"), "right");
  assert.equal(verdict(MINUS, "-10.000001"), "right");
});

test("a tie is decided on the digits typed, away from zero", () => {
  // half a unit above: rounds up (away from zero), so one unit off
  assert.equal(verdict(BIAS, "0.12565"), "close");
  // half a unit below: rounds up to the answer; a binary float of 0.12555
  // lies below it, and would round down
  assert.equal(verdict(BIAS, "0.12555"), "right");
  assert.equal(verdict(BIAS, "0.12545"), "close"); // to 0.1255
  assert.equal(verdict(RATIO, "1.495"), "right");
  assert.equal(verdict(RATIO, "1.505"), "close"); // to 1.51
  // negative numbers round away from zero too
  assert.equal(verdict(MINUS, "-9.95"), "right"); // to −10.0
  assert.equal(verdict(MINUS, "-10.05"), "close"); // to −10.1
  assert.equal(verdict(MINUS, "-9.949999"), "close"); // to −9.9
  assert.equal(verdict(GATES, "9.535e-7"), "right");
  assert.equal(verdict(GATES, "9.545e-7"), "close");
});

test("too few digits ask for more, and are neither right nor a try", () => {
  assert.deepEqual(grade(BIAS, "0.126"), { verdict: "precision",
    text: "Give 4 decimals: 0.126 agrees with the answer as far as it goes." });
  assert.equal(verdict(BIAS, "0.13"), "precision"); // 0.1256 to 2 decimals
  assert.equal(verdict(BIAS, "0,126"), "precision");
  assert.equal(verdict(BIAS, "0.125"), "wrong"); // the answer is 0.126 there
  assert.equal(verdict(BIAS, "0.12"), "wrong");
  assert.equal(verdict(BIAS, "0"), "wrong"); // zero means zero
  assert.equal(verdict(RATIO, "1.6"), "wrong");
  assert.match(grade(RATIO, "2").text, /^Give 2 decimals: 2 agrees/);
  assert.equal(verdict(GATES, "1e-6"), "precision");
  assert.equal(verdict(GATES, "9.6e-7"), "wrong");
  assert.equal(verdict(GATES, "0"), "wrong");
  assert.match(grade(BYTES, "32.8e3").text,
    /^Give the exact number of bytes: 32.8e3 agrees/);
  assert.equal(verdict(BYTES, "33e3"), "precision");
  assert.equal(verdict(BYTES, "32.7e3"), "wrong");
  assert.equal(progress("precision", 1).wrong, 1);
  // the answer's own value with fewer zeros is the answer
  assert.equal(verdict(MINUS, "-10"), "right");
  assert.equal(verdict(RATIO, "1.5"), "right");
  assert.equal(verdict(MINUS, "10"), "wrong"); // the sign counts
});

test("close is never right and no wrong try: it does not bring the hint",
  () => {
    assert.deepEqual(progress("close", 0),
      { wrong: 0, hint: false, offer: false });
    assert.deepEqual(progress("close", 1),
      { wrong: 1, hint: false, offer: false });
    assert.equal(progress("close", 2).offer, true); // offered already
  });

test("a count is exact: one off is wrong, not close", () => {
  assert.equal(verdict(BYTES, "32768"), "right");
  assert.equal(verdict(BYTES, "32767"), "wrong");
  assert.equal(verdict(BYTES, "32769"), "wrong");
  assert.equal(verdict(BYTES, "32766"), "wrong");
  assert.equal(verdict(BYTES, "32768.4"), "wrong"); // no rounding
  assert.equal(verdict(BYTES, "32768.0"), "right");
  assert.equal(verdict(BYTES, "3.2768e4"), "right");
  assert.equal(verdict(BYTES, "32,768.0"), "right");
});

test("grouped thousands are read, and a point in a count is asked about",
  () => {
    for (const reply of ["32 768", "32,768", "32\u202f768", "32\u00a0768",
      "32768"]) {
      assert.deepEqual(grade(BYTES, reply),
        { verdict: "right", text: "Right: 32,768." }, reply);
    }
    // "32,768" groups thousands or has a decimal comma: both are tried
    assert.deepEqual(readings("32,768"), [
      { n: 32768n, d: 1n, place: 0 }, { n: 32768n, d: 1000n, place: -3 }]);
    assert.deepEqual(grade(BYTES, "32.768"), { verdict: "ambiguous",
      text: "Did you mean 32768? A number of bytes is whole: type it "
        + "without the point." });
    assert.equal(verdict(BYTES, "12.345 bytes"), "ambiguous");
    assert.equal(progress("ambiguous", 1).wrong, 1);
    // where decimals are asked, a point is a point
    assert.equal(verdict(number("32.77", "32.77", 2), "32.768"), "right");
    assert.equal(verdict(BYTES, "32.76"), "wrong"); // no thousands there
  });

test("a number is read exactly, in the forms the book prints", () => {
  assert.deepEqual(readings("0.1255"), [{ n: 1255n, d: 10000n, place: -4 }]);
  assert.deepEqual(readings("−10.1"), [{ n: -101n, d: 10n, place: -1 }]);
  assert.deepEqual(readings(" - 10 "), [{ n: -10n, d: 1n, place: 0 }]);
  assert.deepEqual(readings("+0.25"), [{ n: 25n, d: 100n, place: -2 }]);
  assert.deepEqual(readings("9.54e-7"),
    [{ n: 954n, d: 10n ** 9n, place: -9 }]);
  assert.deepEqual(readings("32.8e3"), [{ n: 32800n, d: 1n, place: 2 }]);
  for (const reply of ["9.54 × 10⁻⁷", "9.54 x 10^-7", "9.54*10^(-7)",
    "9,54e-7", "9.54E-7", "954e-9"]) {
    assert.equal(verdict(GATES, reply), "right", reply);
  }
  assert.equal(verdict(GATES, "9.55 × 10⁻⁷"), "close");
  assert.equal(verdict(GATES, "9.54 × 10⁻⁶"), "wrong");
  assert.equal(verdict(MINUS, "−10.0"), "right"); // the Unicode minus
  assert.equal(verdict(MINUS, "–10,0"), "right"); // a dash, a comma
  assert.equal(verdict(BIAS, " +0,1256 "), "right");
  assert.deepEqual(readings("1,234.5"), [{ n: 12345n, d: 10n, place: -1 }]);
});

test("fractions and powers are read exactly, and have every digit", () => {
  assert.deepEqual(readings("1/6"), [{ n: 1n, d: 6n, place: null }]);
  assert.deepEqual(readings("2^15"), [{ n: 32768n, d: 1n, place: null }]);
  assert.deepEqual(readings("2^-3"), [{ n: 1n, d: 8n, place: null }]);
  assert.equal(verdict(SIXTH, "1/6"), "right"); // 0.1666… to 0.17
  assert.equal(verdict(SIXTH, "4/25"), "close"); // 0.16
  assert.equal(verdict(SIXTH, "1/5"), "wrong"); // 0.20, three units off
  assert.equal(verdict(RATIO, "3/2"), "right");
  assert.equal(verdict(RATIO, "-3/2"), "wrong");
  assert.equal(verdict(RATIO, "151/100"), "close");
  assert.equal(verdict(MINUS, "−20/2"), "right");
  for (const reply of ["2^15", "2**15", "2¹⁵", "65536/2"]) {
    assert.equal(verdict(BYTES, reply), "right", reply);
  }
  assert.equal(verdict(BYTES, "2^14"), "wrong");
  assert.equal(verdict(GATES, "0.25^10"), "right"); // 9.5367…e-7
  assert.equal(verdict(GATES, "0.25¹⁰"), "right");
  assert.equal(verdict(GATES, "1/4^10"), "unreadable"); // one operation
  assert.equal(verdict(SIXTH, "1/0"), "unreadable");
});

test("a number may carry the unit the question counts", () => {
  for (const reply of ["32768 bytes", "32,768 bytes", "32768bytes",
    "32 768 Bytes", "2^15 bytes"]) {
    assert.equal(verdict(BYTES, reply), "right", reply);
  }
  assert.equal(verdict(BYTES, "32767 bytes"), "wrong");
  assert.equal(verdict(BYTES, "32 KiB"), "unreadable"); // another unit
  assert.equal(verdict(RATIO, "1.50 bytes"), "unreadable"); // no unit here
});

test("words and an empty reply ask for a number, and are no try", () => {
  for (const reply of ["", "   ", "\t"]) {
    const result = grade(BIAS, reply);
    assert.equal(result.verdict, "empty");
    assert.match(result.text, /^Type your answer/);
    assert.deepEqual(progress(result.verdict, 1),
      { wrong: 1, hint: false, offer: false });
  }
  for (const reply of ["ten", "bytes", "1.2.3", "0.1256abc", "1e"]) {
    assert.deepEqual(grade(BIAS, reply), { verdict: "unreadable",
      text: "Enter a number, such as 0.25, 0,25, 1/4 or 2.5e-3." }, reply);
  }
  assert.equal(progress("unreadable", 1).wrong, 1);
  assert.equal(grade({ kind: "choice", right: 1 }, -1).verdict, "empty");
});

test("a choice is right or wrong", () => {
  const choice = { kind: "choice", right: 1 };
  assert.deepEqual(grade(choice, 1), { verdict: "right", text: "Right." });
  assert.deepEqual(grade(choice, 0), { verdict: "wrong", text: "Not quite." });
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
