// The questions' widget: reading and grading a reply, with `node --test`.
// Each question is written as quiz.py writes it into the page: the value
// the chapter computes, in full (its Python repr), and the answer rounded
// from it to the digits asked, as a decimal string, here rounded by hand.
import assert from "node:assert/strict";
import { test } from "node:test";

import { TRIES, grade, grading, progress, readings }
  from "../../explorers/quiz.js";

const number = (exact, answer, shown, digits, more = {}) => ({
  kind: "number", exact, answer, shown, digits, significant: false,
  count: null, ...more });
// backward-ratio: 2 − 4096/8256 = 1.50387…, asked to two decimals
const RATIO = number("1.503875968992248", "1.50", "1.50", 2);
// saved-per-layer: 128 × 64 float32 numbers of 4 bytes, a count
const BYTES = number("32768.0", "32768", "32,768", 0, { count: "bytes" });
// mul-gradient: 5 × (−2), asked to one decimal
const MINUS = number("-10.0", "-10.0", "−10.0", 1);
// numeric-bias: (σ(0.9) − 0.1) σ(0.9)(1 − σ(0.9)) = 0.125550…, four decimals
const BIAS = number("0.12555031056004132", "0.1256", "0.1256", 4);
// ten-gates: 0.25¹⁰ = 9.5367…e-7, three significant digits
const GATES = number("9.5367431640625e-07", "9.54e-7", "9.54 × 10⁻⁷", 3,
  { significant: true });
// linear-default: about a sixth, two decimals
const SIXTH = number("0.16666666666666666", "0.17", "0.17", 2);

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
    assert.equal(verdict(number("32.768", "32.77", "32.77", 2), "32.768"),
      "right");
    assert.equal(verdict(BYTES, "32.76"), "wrong"); // no thousands there
    // the two readings judged apart are asked about, and cost no try:
    // found by an outside trial, which had -10,000 and 1,500 called right
    for (const [q, reply] of [[MINUS, "-10,000"], [RATIO, "1,500"],
      [RATIO, "1,504"]]) {
      assert.deepEqual(grade(q, reply), { verdict: "ambiguous", text:
        `${reply} reads two ways, with a decimal comma or with grouped `
        + "thousands: type it with a point, or without the comma." }, reply);
    }
    // where both readings agree, or only one exists, there is no question
    assert.equal(verdict(RATIO, "1,50"), "right");
    assert.equal(verdict(RATIO, "1,5039"), "right");
    assert.equal(verdict(MINUS, "-10,0"), "right");
    assert.equal(verdict(BIAS, "0,126"), "precision"); // 0 groups nothing
    assert.equal(verdict(RATIO, "2,000"), "wrong"); // 2000 and 2.000
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
    "9,54e-7", "9.54E-7", "954e-9", "9.54 · 10⁻⁷",
    "9.54 ⋅ 10⁻⁷"]) {
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
    "32 768 Bytes", "2^15 bytes", "3.2768 × 10⁴ bytes", "3.2768 10^4 bytes"]) {
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
  for (const reply of ["ten", "bytes", "1.2.3", "1e"]) {
    assert.deepEqual(grade(BIAS, reply), { verdict: "unreadable",
      text: "Enter a number, such as 0.25, 0,25, 1/4 or 2.5e-3." }, reply);
  }
  for (const [q, reply] of [[BIAS, "0.1256abc"], [BYTES, "32768 B"],
    [BYTES, "32 KiB"], [RATIO, "150%"]]) {  // a unit the widget cannot read
    assert.deepEqual(grade(q, reply), { verdict: "unreadable",
      text: "Enter a number, such as 0.25, 0,25, 1/4 or 2.5e-3, without "
        + "a unit." }, reply);
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

// An independent attack on the rule the page states, finding by finding:
// each exact input, with its verdict worked out by hand.
const tries = (verdicts) => verdicts.reduce(
  (wrong, v) => progress(v, wrong).wrong, 0);

test("too few digits are judged against the exact value, rounded to the "
  + "digits typed, not against the rounded answer", () => {
  // 1.503875… to no decimals is 2 (its .50387… is over one half), so 2
  // agrees as far as it goes and 1 does not; the rounded 1.50 is a tie
  // there, which made both agree
  assert.deepEqual(grade(RATIO, "2"), { verdict: "precision",
    text: "Give 2 decimals: 2 agrees with the answer as far as it goes." });
  assert.deepEqual(grade(RATIO, "1"),
    { verdict: "wrong", text: "Not quite." });
  assert.equal(progress(verdict(RATIO, "1"), 0).wrong, 1); // a try
  assert.equal(verdict(RATIO, "3"), "wrong");
  assert.equal(verdict(RATIO, "1.5"), "right"); // 1.50 itself
  // to one decimal: 1.5, so 1.4 and 1.6 are wrong
  assert.equal(verdict(RATIO, "1.4"), "wrong");
  assert.equal(verdict(RATIO, "1.6"), "wrong");
  // a value just below a tie of its rounded answer: 0.2456 is 0.25 to two
  // decimals, but 0.2 to one (0.25 would tie, and round up to 0.3)
  const under = number("0.2456", "0.25", "0.25", 2);
  assert.equal(verdict(under, "0.2"), "precision");
  assert.equal(verdict(under, "0.3"), "wrong");
  assert.equal(verdict(under, "0"), "wrong"); // zero means zero
  // significant digits likewise: 9.5367e-7 is 9.5e-7, 1e-6, 0.000001
  assert.equal(verdict(GATES, "9.5e-7"), "precision");
  assert.equal(verdict(GATES, "1e-6"), "precision");
  assert.equal(verdict(GATES, "9.6e-7"), "wrong");
  // and negative values: −10.0 is −1e1 exactly, which is the answer
  assert.equal(verdict(MINUS, "-1e1"), "right");
});

test("a count is exact however it is written: one off is wrong, and a "
  + "try", () => {
  // 32767 and 32769 bytes are one off a count of 32768: wrong, as the
  // page's rule now says ("but in a count it is wrong")
  for (const reply of ["32767", "32767 bytes", "32,767", "32769"]) {
    assert.deepEqual(grade(BYTES, reply),
      { verdict: "wrong", text: "Not quite." }, reply);
  }
  assert.equal(tries(["32767", "32769"].map((r) => verdict(BYTES, r))), 2);
  // 33000 is 232 bytes off, and 32800 is 32, in every way of writing them
  for (const reply of ["3.3e4", "33000", "33,000", "33 000", "33e3",
    "3.3 × 10⁴", "3.3 10^4", "33000 bytes", "3.28e4", "32800", "32,800",
    "32.8e3", "3.28 × 10⁴", "32.7e3"]) {
    assert.equal(verdict(BYTES, reply), "wrong", reply);
  }
  // and 32768 is right in each of them
  for (const reply of ["32768", "32,768", "32 768", "3.2768e4",
    "32.768e3", "3.2768 × 10⁴", "3.2768 10^4", "2^15"]) {
    assert.equal(verdict(BYTES, reply), "right", reply);
  }
});

test("a space before 10^ is a times sign, and an unreadable reply is no "
  + "try", () => {
  assert.deepEqual(readings("9.54 10^-7"),
    [{ n: 954n, d: 10n ** 9n, place: -9 }]);
  assert.deepEqual(readings("1.5 10^0"), [{ n: 15n, d: 10n, place: -1 }]);
  assert.equal(verdict(GATES, "9.54 10^-7"), "right"); // was 9.5410⁻⁷
  assert.equal(verdict(BIAS, "1.256 10^-1"), "right"); // 0.1256
  assert.equal(verdict(RATIO, "1.5 10^0"), "right"); // 1.5
  for (const reply of ["9.54 10⁻⁷", "9.54  10 ^ -7", "9.54 10^(-7)",
    "9.54 10^−7", "954 10^-9"]) {
    assert.equal(verdict(GATES, reply), "right", reply);
  }
  assert.equal(verdict(GATES, "9.55 10^-7"), "close");
  assert.equal(verdict(GATES, "9.5 10^-7"), "precision");
  assert.equal(verdict(GATES, "9.54 10^-6"), "wrong");
  assert.equal(verdict(BIAS, "1.255 10^-1"), "close");
  assert.equal(verdict(RATIO, "2 10^0"), "precision");
  // a space between digits groups thousands, as in "32 768", or the
  // reply is no number: "9.54 10" is not 9.5410, nor "1.5 03" 1.503
  assert.equal(verdict(BYTES, "32 768 bytes"), "right");
  assert.equal(verdict(BYTES, "32 769"), "wrong");
  assert.deepEqual(readings("1 048 576"), [{ n: 1048576n, d: 1n, place: 0 }]);
  // what cannot be read asks for a number, and is no try
  for (const [q, reply] of [[GATES, "9.54 10"], [GATES, "9.54 10-7"],
    [GATES, "9.54 × 10"], [RATIO, "1.5 03"], [RATIO, "1 5"],
    [BYTES, "3276 8"], [BYTES, "32 7680"]]) {
    assert.deepEqual(grade(q, reply), { verdict: "unreadable",
      text: "Enter a number, such as 0.25, 0,25, 1/4 or 2.5e-3." }, reply);
  }
  assert.equal(progress("unreadable", 1).wrong, 1);
});

test("the page's sentence on grading says what the widget does", () => {
  const said = grading();
  assert.equal(said, "One unit off in the last digit is close, but in a "
    + "count it is wrong. Only a wrong number counts as a try, not a close "
    + "one or one with too few digits that agree with the answer as far "
    + "as they go (a 0 means zero, and a fraction or a power is exact); "
    + "after 2 wrong "
    + "tries, the hint "
    + "appears, and the answer can be shown.");
  assert.ok(said.includes(`after ${TRIES} wrong tries`)); // from TRIES
  // "a 0 means zero, and a fraction is exact"
  assert.equal(verdict(BIAS, "0"), "wrong"); // not 0.1256 short of digits
  assert.equal(verdict(GATES, "0.000001"), "precision");
  assert.equal(verdict(GATES, "1/1000000"), "wrong"); // exactly 1e-6
  assert.equal(verdict(GATES, "10^-6"), "wrong"); // so is a power
  // the course edition shows no answer, and does not offer one
  assert.equal(grading(false), said.replace(
    ", and the answer can be shown.", "."));
  // "one unit off in the last digit is close"
  for (const [q, reply] of [[RATIO, "1.49"], [RATIO, "1.51"],
    [BIAS, "0.1255"], [MINUS, "-9.9"], [GATES, "9.53e-7"]]) {
    assert.equal(verdict(q, reply), "close", reply);
  }
  // "but in a count it is wrong"
  assert.equal(verdict(BYTES, "32767"), "wrong");
  assert.equal(verdict(BYTES, "32769"), "wrong");
  // "only a wrong number counts as a try, not a close one or one with too
  // few digits" (nor an empty, unreadable or ambiguous reply)
  const verdicts = [[RATIO, "1.49"], [RATIO, "2"], [RATIO, ""],
    [RATIO, "ten"], [BYTES, "32.768"], [RATIO, "1.5 10^0"]]
    .map(([q, r]) => verdict(q, r));
  assert.deepEqual(verdicts,
    ["close", "precision", "empty", "unreadable", "ambiguous", "right"]);
  assert.equal(tries(verdicts), 0);
  assert.equal(tries(["wrong", ...verdicts, "wrong"]), 2);
  // "after 2 wrong tries, the hint appears, and the answer can be shown"
  let wrong = 0;
  for (let i = 1; i <= TRIES; i += 1) {
    const step = progress(verdict(RATIO, "1"), wrong);
    assert.deepEqual(step, { wrong: i, hint: i === TRIES,
      offer: i === TRIES });
    wrong = step.wrong;
  }
});
