// "Check your understanding": questions that answer at once, offline.
// The book's Python package (booktools/quiz.py) wrote each question into
// the page as Markdown, so Quarto rendered its maths (MathML) and code as
// in the prose: a .quiz-question div with the prompt, the choices as a
// list, and the hint and the reasons hidden. This module turns each div
// into a form. The JSON block beside them holds only what the checking
// needs: the right choice, or a number computed by the chapter's code with
// its tolerance and digits. Native form controls, a live region for the
// feedback, no dependencies.

import { readData } from "./common.js";

const SUPERSCRIPT = { "⁻": "-", "⁺": "+", "⁰": "0", "¹": "1",
  "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8",
  "⁹": "9" };
const LETTERS = "abcdefgh";
/** Wrong tries after which the hint, and the answer, are offered. */
export const TRIES = 2;

/** The ways the digits of a number can be read: "1,234" is a thousand
 * and more, or a decimal comma; "0,25" only the latter. */
function mantissas(body) {
  if (!body.includes(",")) return [body];
  if (body.includes(".")) { // 1,234.5 or 1.234,5: the last mark is the point
    if (/^[1-9]\d{0,2}(,\d{3})+\.\d*$/.test(body)) {
      return [body.replace(/,/g, "")];
    }
    if (/^[1-9]\d{0,2}(\.\d{3})+,\d*$/.test(body)) {
      return [body.replace(/\./g, "").replace(",", ".")];
    }
    return [];
  }
  const found = [];
  if (/^[1-9]\d{0,2}(,\d{3})+$/.test(body)) { // thousands
    found.push(body.replace(/,/g, ""));
  }
  if (/^\d*,\d+$/.test(body)) found.push(body.replace(",", "."));
  return found;
}

/** Every reading of a typed number, as {value, decimals, significant}:
 * its value, how many decimals it gives (9.5e-7 gives 8) and how many
 * significant digits. Accepts "0.25", "+0.25", "0,25", " - 10 ", "−10",
 * "1,048,576", "9.54e-7", "9.54 × 10⁻⁷" and "9.54 x 10^-7"; [] if the
 * text is no number. */
export function readings(text) {
  const t = String(text).replace(/\s+/g, "").replace(/[−–]/g, "-")
    .replace(/[×x*·]10\^?\(?([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|[-+]?\d+)\)?$/,
      (_, p) => "e" + [...p].map((c) => SUPERSCRIPT[c] ?? c).join(""));
  const match = /^([-+]?)([\d.,]+)(?:e([-+]?\d+))?$/i.exec(t);
  if (!match) return [];
  const [, sign, body, exponent = "0"] = match;
  return mantissas(body).filter((m) => /^(\d+\.?\d*|\.\d+)$/.test(m))
    .map((m) => {
      const [whole, fraction = ""] = m.split(".");
      return { value: Number(`${sign}${m}e${exponent}`),
        decimals: fraction.length - Number(exponent),
        significant: Math.max((whole + fraction).replace(/^0+/, "").length,
          1) };
    });
}

/** A typed number's value (its first reading), or NaN. */
export function parseNumber(text) {
  const found = readings(text);
  return found.length ? found[0].value : NaN;
}

function asked(question) {
  const d = question.digits;
  const s = d === 1 ? "" : "s";
  if (question.significant) return `${d} significant digit${s}`;
  return d === 0 ? "the whole number" : `${d} decimal${s}`;
}

function judge(question, found, typed) {
  const off = Math.abs(found.value - question.answer);
  if (off <= question.tolerance) {
    return { verdict: "right", text: `Right: ${question.shown}.` };
  }
  // fewer digits than asked, but the answer to as many as were given
  const given = question.significant ? found.significant : found.decimals;
  if (given < question.digits && found.value !== 0
      && off <= 0.5 * 10 ** -found.decimals * (1 + 1e-9)) {
    return { verdict: "precision", text: `Give ${asked(question)}: ${typed} `
      + "agrees with the answer as far as it goes." };
  }
  return { verdict: "wrong", text: "Not quite." };
}

const RANK = ["right", "precision", "wrong"];

/** Whether a reply is right, as {verdict, text}: the verdict is "right",
 * "wrong", "precision" (right but with too few digits), "empty" or
 * "unreadable"; only "wrong" counts as a try. A choice's reply is its
 * index (-1 for none); a number's is the text typed. */
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
  const results = readings(typed).map((r) => judge(question, r, typed));
  if (!results.length) {
    return { verdict: "unreadable",
      text: "Enter a number, such as 0.25 (or 0,25, or 2.5e-3)." };
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
  const forms = data.questions.flatMap((q) => {
    const div = root.querySelector(`.quiz-question[data-id="${q.id}"]`);
    return div ? [questionForm(doc, div, q, root.dataset.quiz)] : [];
  });
  root.replaceChildren(...[title].filter(Boolean), ...forms);
  root.dataset.ready = "true";
}

if (typeof document !== "undefined") {
  for (const root of document.querySelectorAll("[data-quiz]")) mount(root);
}
