// "Check your understanding": questions that answer at once, offline.
// The book's Python package (booktools/quiz.py) wrote each question into
// the page as Markdown, so Quarto rendered its maths (MathML) and code as
// in the prose: a .quiz-question div with the prompt, the choices as a
// list, and the hint and the reasons hidden. This module turns each div
// into a form. The JSON block beside them holds only what the checking
// needs: the right choice, or the number that the chapter's code computed,
// in full ("1.503875968992248") and rounded by quiz.py to the digits asked
// ("1.50", "9.54e-7"), with how the page shows it. Native form controls,
// a live region for the feedback, no dependencies.

import { mountEach, readData } from "./common.js";

const SUPERSCRIPT = { "⁻": "-", "⁺": "+", "⁰": "0", "¹": "1",
  "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
  "⁹": "9" };
const LETTERS = "abcdefgh";
/** Wrong tries after which the hint, and the answer, are offered. */
export const TRIES = 2;

/** What the page says after quiz.py's rule (that more digits are fine,
 * and that a count is exact): what only the widget does. */
export function grading(answers = true) {
  return "One unit off in the last digit is close, but in a count it is "
    + "wrong. Only a wrong number counts as a try, not a close one or one "
    + "with too few digits that agree with the answer as far as they go "
    + "(a 0 means zero, and a fraction or a power is exact); "
    + `after ${TRIES} wrong tries, the hint appears`
    + (answers ? ", and the answer can be shown." : ".");
}

/** The ways the digits of a number can be read: "1,234" and "1,234.5"
 * group thousands, as the book does, or "1,234" has a decimal comma, as
 * "0,25" has. */
function mantissas(body) {
  const found = /^[1-9]\d{0,2}(,\d{3})+(\.\d*)?$/.test(body)
    ? [body.replace(/,/g, "")] : [];
  if (/^\d*,\d+$/.test(body)) found.push(body.replace(",", "."));
  return body.includes(",") ? found : [body];
}

/** Typed text, tidied: "-" for − and –, "^" before superscripts, "e"
 * for "× 10^" and for a space before "10^" ("9.54 10⁻⁷"), no space but
 * between digits that do not group thousands ("32 768" is 32768, "9.54 10"
 * is no number), and without the unit that the question counts ("32768
 * bytes", "1 byte"). */
function tidy(text, unit = null) {
  const t = String(text).replace(/[−–]/g, "-")
    .replace(/[⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹]+/g,
      (p) => "^" + [...p].map((c) => SUPERSCRIPT[c]).join(""))
    .replace(/(\d)\s+(?=10\s*\^)/g, "$1×")
    .replace(/(\d)\s(?=\d{3}(?!\d))/g, "$1")
    .replace(/(\D|^)\s+|\s+(?=\D|$)/g, "$1");
  return (unit ? t.replace(new RegExp(`${unit.replace(/s$/, "")}s?$`, "i"),
    "") : t).replace(/[×x*·⋅]10\^\(?([-+]?\d+)\)?$/i, "e$1");
}

// Replies and answers are exact fractions of BigInts, never binary
// floats: 0.1255 is one unit of 10⁻⁴ below 0.1256, not 0.99 of one, and a
// tie such as 0.12565 is a tie.
const ten = (k) => 10n ** BigInt(k);
const abs = (n) => (n < 0n ? -n : n);

/** A decimal's readings as {n, d, place}: its value n/d and the power of
 * ten of its last digit (1.50: -2; 32.8e3: 2). */
function decimals(text) {
  const match = /^([\d.,]+)(?:e([-+]?\d{1,3}))?$/i.exec(text);
  if (!match) return [];
  return mantissas(match[1]).filter((m) => /^(\d+\.?\d*|\.\d+)$/.test(m))
    .map((m) => {
      const [whole, fraction = ""] = m.split(".");
      const place = Number(match[2] ?? 0) - fraction.length;
      const digits = BigInt(whole + fraction);
      return place < 0 ? { n: digits, d: ten(-place), place }
        : { n: digits * ten(place), d: 1n, place };
    });
}

/** Every reading of a typed number, as {n, d, place} (see decimals): a
 * decimal ("0.25", "+0,25", "1,048,576", "9.54e-7", "9.54 × 10⁻⁷"), or a
 * fraction or power ("1/6", "2^15", "2**15", "0.25¹⁰"), whose digits
 * never end (place null); [] if the text is none of these. */
export function readings(text, unit = null) {
  const [, sign, body] = /^([-+]?)(.*)$/.exec(tidy(text, unit));
  const ratio = /^([^/]+)\/([^/]+)$/.exec(body);
  const power = /^([^^*]+)(?:\^|\*\*)\(?(-?\d{1,3})\)?$/.exec(body);
  let found = decimals(body);
  if (ratio) {
    found = decimals(ratio[1]).flatMap((a) => decimals(ratio[2])
      .filter((b) => b.n !== 0n)
      .map((b) => ({ n: a.n * b.d, d: a.d * b.n, place: null })));
  } else if (power) {
    const k = BigInt(power[2]);
    found = decimals(power[1]).filter((a) => k >= 0n || a.n !== 0n)
      .map((a) => (k >= 0n ? { n: a.n ** k, d: a.d ** k, place: null }
        : { n: a.d ** -k, d: a.n ** -k, place: null }));
  }
  return found.map((r) => ({ ...r, n: sign === "-" ? -r.n : r.n }));
}

function asked(question) {
  const d = question.digits;
  const s = d === 1 ? "" : "s";
  if (question.significant) return `${d} significant digit${s}`;
  return d === 0 ? "the whole number" : `${d} decimal${s}`;
}

/** x·10^-place as a fraction [n, d]. */
function scaled({ n, d }, place) {
  return place < 0 ? [n * ten(-place), d] : [n, d * ten(place)];
}

/** x rounded to a place, in units of that place; a tie goes away from
 * zero, as a reader rounds, and as quiz.py rounded the answer. */
function nearest(x, place) {
  const [n, d] = scaled(x, place);
  const units = (2n * abs(n) + d) / (2n * d);
  return n < 0n ? -units : units;
}

/** The verdict on one reading of a reply. The answer is a decimal string
 * with exactly the digits asked ("1.50"), so its last digit's place is
 * the precision asked; the exact value has all the digits the chapter
 * computed ("1.503875968992248"). */
function judge(question, found, typed) {
  const answer = readings(question.answer)[0];
  const right = { verdict: "right", text: `Right: ${question.shown}.` };
  const wrong = { verdict: "wrong", text: "Not quite." };
  if (found.n * answer.d === answer.n * found.d) return right; // -10: −10.0
  // a count is exact, however it is written: 3.3e4 is 33000, and wrong
  if (question.count) return wrong;
  if (found.place !== null && found.place > answer.place) {
    // fewer digits than asked: are they the exact value, rounded to the
    // digits typed? (1 is not 1.5039 to none; zero means zero)
    const exact = readings(question.exact)[0];
    return found.n === 0n || nearest(found, found.place)
      !== nearest(exact, found.place) ? wrong
      : { verdict: "precision", text: `Give ${asked(question)}: ${typed} `
        + "agrees with the answer as far as it goes." };
  }
  const units = nearest(found, answer.place) - nearest(answer, answer.place);
  if (units === 0n) return right;
  return abs(units) === 1n ? { verdict: "close",
    text: "Close: check your rounding." } : wrong;
}

const RANK = ["right", "close", "precision", "wrong"];

/** Whether a reply is right, as {verdict, text}: the verdict is "right",
 * "wrong", "close" (one unit off in the last digit asked), "precision"
 * (right but with too few digits), "ambiguous" (a count typed as 32.768,
 * or "1,500" where thousands and a decimal comma get different verdicts),
 * "empty" or "unreadable"; only "wrong" counts as a try. A choice's reply
 * is its index (-1 for none); a number's is the text typed. */
export function grade(question, reply) {
  if (question.kind === "choice") {
    if (!(reply >= 0)) {
      return { verdict: "empty", text: "Choose an answer first." };
    }
    return reply === question.right ? { verdict: "right", text: "Right." }
      : { verdict: "wrong", text: "Not quite." };
  }
  const typed = String(reply).trim();
  if (typed === "") {
    return { verdict: "empty",
      text: "Type your answer first, for example 0.25." };
  }
  // the point groups thousands in some languages, and marks decimals here
  const bare = tidy(typed, question.count);
  if (question.count && /^[1-9]\d{0,2}(\.\d{3})+$/.test(bare)) {
    return { verdict: "ambiguous", text: `Did you mean ${bare.replace(
      /\./g, "")}? A number of ${question.count} is whole: type it `
      + "without the point." };
  }
  // a count is whole, so its comma groups thousands ("32,768")
  let found = readings(typed, question.count);
  const whole = (r) => r.n % r.d === 0n;
  if (question.count && found.some(whole)) found = found.filter(whole);
  const results = found.map((r) => judge(question, r, typed));
  if (new Set(results.map((r) => r.verdict)).size > 1) {
    // "1,500": thousands or a decimal comma, and they are judged apart
    return { verdict: "ambiguous", text: `${typed} reads two ways, with `
      + "a decimal comma or with grouped thousands: type it with a point, "
      + "or without the comma." };
  }
  if (!results.length) {
    return { verdict: "unreadable",
      text: "Enter a number, such as 0.25, 0,25, 1/4 or 2.5e-3"
        + (/\d\s*(?!e$)[a-z%]+$/i.test(typed) ? ", without a unit." : ".") };
  }
  return results.sort((a, b) => RANK.indexOf(a.verdict)
    - RANK.indexOf(b.verdict))[0];
}

/** After a verdict, with `wrong` wrong tries before it: the count now,
 * whether to give the hint, and whether to offer the answer. */
export function progress(verdict, wrong) {
  const now = wrong + (verdict === "wrong" ? 1 : 0);
  return { wrong: now, hint: verdict === "wrong" && now >= TRIES,
    offer: now >= TRIES && verdict !== "right" };
}

/** Show lead text and then a rendered text (hint or reason), in place. */
function say(box, lead, rendered = null) {
  const doc = box.ownerDocument;
  const first = doc.createElement("p");
  first.append(...lead.map((part) => typeof part === "string" ? part
    : part.cloneNode(true)));
  const blocks = rendered ? [...rendered.children] : [];
  if (blocks[0] && blocks[0].tagName === "P") { // go on in the same sentence
    first.append(" ", ...[...blocks.shift().childNodes].map((n) =>
      n.cloneNode(true)));
  }
  box.replaceChildren(first, ...blocks.map((b) => b.cloneNode(true)));
}

function choiceControls(doc, div, id) {
  const list = doc.createElement("div");
  list.className = "quiz-choices";
  const items = [...div.querySelectorAll(".quiz-choices li")];
  const labels = items.map((item, i) => {
    const wrap = doc.createElement("div");
    const input = doc.createElement("input");
    Object.assign(input, { type: "radio", name: id, id: `${id}-${i}`,
      value: String(i) });
    const label = doc.createElement("label");
    label.htmlFor = input.id;
    const letter = doc.createElement("span"); // as the PDF and notebook
    letter.className = "quiz-letter";
    letter.textContent = `(${LETTERS[i]})`;
    // then the rendered choice, maths and all: with the letter, even a
    // choice that is all maths has a label in plain text too
    label.append(letter, " ", ...item.childNodes);
    wrap.append(input, label);
    list.append(wrap);
    return label;
  });
  const reply = (form) => {
    const picked = form.querySelector(`input[name="${id}"]:checked`);
    return picked ? Number(picked.value) : -1;
  };
  return [list, reply, labels];
}

function numberControls(doc, id) {
  const wrap = doc.createElement("div");
  const label = doc.createElement("label");
  const input = doc.createElement("input");
  Object.assign(input, { type: "text", id: `${id}-answer`,
    inputMode: "decimal", autocomplete: "off", spellcheck: false });
  label.htmlFor = input.id;
  label.textContent = "Your answer";
  wrap.append(label, input);
  return [wrap, () => input.value, []];
}

function button(doc, type, text, className) {
  const b = doc.createElement("button");
  Object.assign(b, { type, textContent: text, className });
  return b;
}

/** One question: its rendered div becomes a form with a fieldset (the
 * prompt as its legend), a Check button, a "Show the answer" button that
 * appears after TRIES wrong tries, and a live region for the feedback. */
export function questionForm(doc, div, question, section) {
  const id = `quiz-${section}-${question.id}`;
  const form = doc.createElement("form");
  form.className = "quiz-question";
  const fieldset = doc.createElement("fieldset");
  const legend = doc.createElement("legend");
  const prompt = div.querySelector(":scope > p");
  if (prompt) legend.append(...prompt.childNodes);
  // (in a content-hidden div, which plain pandoc keeps, until Quarto
  // renders it away)
  const why = [...div.querySelectorAll(".quiz-why")];
  const hint = div.querySelector(":scope > .quiz-hint");
  const [controls, reply, labels] = question.kind === "choice"
    ? choiceControls(doc, div, id) : numberControls(doc, id);
  const check = button(doc, "submit", "Check", "quiz-check");
  const show = button(doc, "button", "Show the answer", "quiz-show");
  show.hidden = true;
  const feedback = doc.createElement("div");
  feedback.className = "quiz-feedback";
  feedback.id = `${id}-feedback`;
  feedback.setAttribute("role", "status"); // a polite live region
  fieldset.setAttribute("aria-describedby", feedback.id);
  fieldset.append(legend, controls, check, show, feedback);
  form.append(fieldset);
  let wrong = 0;
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const picked = reply(form);
    const result = grade(question, picked);
    const step = progress(result.verdict, wrong);
    wrong = step.wrong;
    form.dataset.state = result.verdict;
    const reason = question.kind === "choice" ? why[picked] : why[0];
    if (result.verdict === "right") say(feedback, [result.text], reason);
    else if (result.verdict !== "wrong") say(feedback, [result.text]);
    else if (question.kind === "choice") say(feedback, [result.text], reason);
    else if (step.hint) say(feedback, [`${result.text} A hint:`], hint);
    else say(feedback, [`${result.text} Try again.`]);
    // the course edition has no reasons, and shows no answer
    show.hidden = !step.offer || why.length === 0;
  });
  show.addEventListener("click", () => {
    form.dataset.state = "shown";
    if (question.kind === "choice") {
      const label = labels[question.right];
      const stop = /[.?!]$/.test(label.textContent.trim()) ? "" : ".";
      say(feedback, ["The answer: ", ...label.childNodes, stop],
        why[question.right]);
    } else {
      say(feedback, [`The answer: ${question.shown}.`], why[0]);
    }
  });
  return form;
}

export function mount(root) {
  const doc = root.ownerDocument;
  const data = readData(root);
  const title = root.querySelector(".quiz-title");
  const rule = root.querySelector(".quiz-rule"); // how numbers are graded
  // the course edition has no reasons, and shows no answer
  rule?.append(` ${grading(root.querySelector(".quiz-why") !== null)}`);
  const forms = data.questions.flatMap((q) => {
    const div = root.querySelector(`.quiz-question[data-id="${q.id}"]`);
    return div ? [questionForm(doc, div, q, root.dataset.quiz)] : [];
  });
  root.replaceChildren(...[title, rule].filter(Boolean), ...forms);
  root.dataset.ready = "true";
}

mountEach("[data-quiz]", mount);
