// "Check your understanding": questions that answer at once, offline.
// The book's Python package wrote the questions, with every numeric
// answer computed by the chapter's code, into a JSON block in the page.
// Native form controls, a live region for the feedback, no dependencies.

import { readData } from "./common.js";

/** A typed number: accepts "0.25", "-10", "−10", "9.54e-7", "9.54 × 10⁻⁷". */
export function parseNumber(text) {
  const superscript = { "⁻": "-", "⁰": "0", "¹": "1", "²": "2", "³": "3",
    "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9" };
  let t = text.trim().replace(/−/g, "-").replace(/,/g, "")
    .replace(/\s*[×x*]\s*10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)/,
      (_, p) => "e" + [...p].map((c) => superscript[c]).join(""))
    .replace(/\s*[×x*]\s*10\^\(?(-?\d+)\)?/, "e$1");
  if (!/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return NaN;
  return Number(t);
}

/** Whether a reply is right, and what to tell the reader about it. */
export function grade(question, reply) {
  if (question.kind === "choice") {
    const choice = question.choices[reply];
    if (!choice) return { correct: false, message: "Choose an answer first." };
    return choice.correct
      ? { correct: true, message: `Right. ${choice.why}` }
      : { correct: false, message: `Not quite. ${choice.why}` };
  }
  const value = parseNumber(String(reply));
  if (Number.isNaN(value)) {
    return { correct: false, message: "Enter a number, such as 0.25." };
  }
  return Math.abs(value - question.answer) <= question.tolerance
    ? { correct: true, message: `Right: ${question.shown}. ${question.why}` }
    : { correct: false, message: `Not quite. ${question.hint}` };
}

function choiceControls(doc, question, id) {
  const list = doc.createElement("div");
  list.className = "quiz-choices";
  question.choices.forEach((choice, i) => {
    const wrap = doc.createElement("div");
    const input = doc.createElement("input");
    Object.assign(input, { type: "radio", name: id, id: `${id}-${i}`,
      value: String(i) });
    const label = doc.createElement("label");
    label.htmlFor = input.id;
    label.textContent = choice.text;
    wrap.append(input, label);
    list.append(wrap);
  });
  return [list, (form) => {
    const picked = form.querySelector(`input[name="${id}"]:checked`);
    return picked ? Number(picked.value) : -1;
  }];
}

function numberControls(doc, id) {
  const wrap = doc.createElement("div");
  const label = doc.createElement("label");
  const input = doc.createElement("input");
  Object.assign(input, { type: "text", id: `${id}-answer`,
    inputMode: "decimal", autocomplete: "off" });
  label.htmlFor = input.id;
  label.textContent = "Your answer";
  wrap.append(label, input);
  return [wrap, () => input.value];
}

/** One question: a form with its fieldset, a Check button, feedback. */
export function questionForm(doc, question, section) {
  const id = `quiz-${section}-${question.id}`;
  const form = doc.createElement("form");
  form.className = "quiz-question";
  const fieldset = doc.createElement("fieldset");
  const legend = doc.createElement("legend");
  legend.textContent = `Question ${question.number}. ${question.prompt}`;
  const [controls, reply] = question.kind === "choice"
    ? choiceControls(doc, question, id) : numberControls(doc, id);
  const button = doc.createElement("button");
  button.type = "submit";
  button.textContent = "Check";
  const feedback = doc.createElement("p");
  feedback.className = "quiz-feedback";
  feedback.id = `${id}-feedback`;
  feedback.setAttribute("role", "status"); // a polite live region
  fieldset.setAttribute("aria-describedby", feedback.id);
  fieldset.append(legend, controls, button, feedback);
  form.append(fieldset);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const result = grade(question, reply(form));
    feedback.textContent = result.message;
    form.dataset.state = result.correct ? "right" : "wrong";
  });
  return form;
}

export function mount(root) {
  const doc = root.ownerDocument;
  const data = readData(root);
  const title = root.querySelector(".quiz-title");
  const forms = data.questions.map((q) =>
    questionForm(doc, q, root.dataset.quiz));
  root.replaceChildren(...[title].filter(Boolean), ...forms);
  root.dataset.ready = "true";
}

if (typeof document !== "undefined") {
  for (const root of document.querySelectorAll("[data-quiz]")) mount(root);
}
