// Live Python cells: a page's cells of class "live" (pure Python, no
// torch) can be edited and run in the reader's browser. Python is
// Pyodide, loaded from the site's own pyodide/ folder on the first Run
// only, so a page that is just read weighs what it did, and nothing is
// requested from another site. booktools/live.py writes the page's
// set-up (#live-config) and puts the runtime into the site.
//
// The cells share one namespace, as in a notebook. Running a cell first
// runs every earlier live cell that has not run, without an error, in
// its current text, except the other exercises' starters and checks: a
// check always sees the current answer above it, whether or not the
// reader pressed its Run, and an answer that fails stops the check with
// a note instead.

const STARTING = "Starting Python in this page: the first Run loads it " +
  "from this site, which takes a few seconds…";

/** A cell's label, from its id: "cell-check-tanh" → "check-tanh". */
export function cellLabel(id) {
  return (id || "").replace(/^cell-/, "");
}

/** The earlier cells to run before cells[index]: those not run in their
 *  current text, leaving out the other exercises' cells (checks, and
 *  starters, which an unfinished answer there would make fail). Each
 *  entry has label, ran and text() (the source now). */
export function staleBefore(cells, index) {
  const exercise = cellLabel(cells[index].label).replace(/^check-/,
    "starter-");
  return cells.slice(0, index).filter((cell) => {
    const label = cellLabel(cell.label);
    const other = label.startsWith("check-") ||
      (label.startsWith("starter-") && label !== exercise);
    return !other && cell.ran !== cell.text();
  });
}

let worker = null;
let ready = null;
let pending = null; // rejects the answer that a Stop will never send
let starting = null; // rejects a start that a Stop cut short
let running = null; // the cell whose run is under way, if any

/** Pyodide in a worker (live-worker.js), with the book's files, started
 *  once; a Stop ends it, and the next Run starts a new one. */
function python(config) {
  ready ??= new Promise((resolve, reject) => {
    starting = reject;
    const at = (path) => new URL(path, document.baseURI).href;
    worker = new Worker(new URL("live-worker.js", import.meta.url),
      { type: "module" });
    worker.onmessage = ({ data }) =>
      (data.ready ? resolve() : reject(new Error(data.error)));
    worker.onerror = (event) => reject(new Error(event.message ||
      "the Python worker did not start"));
    worker.postMessage({ start: { runtime: at(config.runtime),
      files: at(config.files), package: config.package,
      prelude: config.prelude } });
  });
  return ready;
}

/** [ok, text] of one cell's source, run in the worker. */
function ask(source) {
  return new Promise((resolve, reject) => {
    pending = reject;
    worker.onmessage = ({ data }) => (data.error
      ? reject(new Error(data.error)) : resolve([data.ok, data.text]));
    worker.postMessage({ source });
  });
}

/** End a run that does not end: the worker goes, with every name the
 *  cells defined, so every cell counts as not run. */
function stop(cells) {
  worker?.terminate();
  worker = null;
  ready = null;
  pending?.(new Error("stopped"));
  starting?.(new Error("stopped"));
  for (const cell of cells) cell.ran = null;
}

/** Show text in a cell's live output, in place of the book's output. */
function show(cell, text, failed = false) {
  cell.output.hidden = false;
  cell.output.classList.toggle("live-failed", failed);
  cell.output.querySelector("pre").textContent = text ||
    "Ran, without output.";
  for (const old of cell.node.querySelectorAll(".cell-output")) {
    old.hidden = true;
  }
}

async function execute(cell) {
  const source = cell.text();
  const [ok, text] = await ask(source);
  cell.ran = ok ? source : null; // a failed cell runs again next time
  show(cell, text, !ok);
  return ok;
}

async function run(config, cells, index, fromKeys = false) {
  const cell = cells[index];
  if (running === cell) { // the button says Stop; Ctrl+Enter never stops
    if (!fromKeys) stop(cells);
    return;
  }
  if (running) {
    show(cell, "Not run: another cell on this page is running; its Stop " +
      "button ends it.", true);
    return;
  }
  running = cell;
  cell.button.textContent = "Stop";
  show(cell, ready ? "Running…" : STARTING);
  try {
    await python(config);
    show(cell, "Running…");
    for (const earlier of staleBefore(cells, index)) {
      if (!await execute(earlier)) {
        show(cell, "Not run: an earlier code cell on this page failed " +
          "(its output, above, says why). Fix it, then run this one.", true);
        return;
      }
    }
    await execute(cell);
  } catch (error) {
    const stopped = error.message === "stopped";
    stop(cells); // start afresh on the next Run
    show(cell, stopped ? "Stopped. Python starts afresh on the next Run, " +
      "which runs the cells above it again." : "Python could not start " +
      `in this page (${error.message}). The code and output above are the ` +
      "book's own run.", true);
  } finally {
    running = null;
    cell.button.textContent = "Run";
  }
}

/** Edit: the code becomes a text box, which Ctrl+Enter runs. */
function edit(cell, onRun) {
  const box = Object.assign(document.createElement("textarea"),
    { className: "live-editor", spellcheck: false, value: cell.original });
  const fit = () => { box.rows = box.value.split("\n").length + 1; };
  fit();
  box.addEventListener("input", fit);
  box.setAttribute("aria-label", `${cell.name}: Python code, editable. ` +
    "Tab leaves the box; Ctrl+Enter runs the cell.");
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun(true);
    }
  });
  const hint = document.createElement("p");
  hint.className = "live-hint";
  hint.textContent = "Indent with spaces (Tab moves on to the buttons). " +
    "Ctrl+Enter runs the cell; Reset brings back the book's code.";
  cell.code.hidden = true;
  cell.code.after(box, hint);
  cell.text = () => box.value;
  cell.edit.textContent = "Reset";
  cell.edit.onclick = () => {
    box.remove();
    hint.remove();
    cell.code.hidden = false;
    cell.text = () => cell.original;
    cell.edit.textContent = "Edit";
    cell.edit.onclick = () => edit(cell, onRun);
    cell.edit.focus();
  };
  box.focus();
}

function setUp(doc, config) {
  const nodes = [...doc.querySelectorAll("div.cell.live")];
  const cells = [];
  nodes.forEach((node, index) => {
    const source = node.querySelector("div.sourceCode");
    const code = node.querySelector("pre code");
    if (!source || !code) return;
    const original = code.textContent.replace(/\n$/, "");
    const name = `Live cell ${index + 1} of ${nodes.length}`;
    const bar = doc.createElement("div");
    bar.className = "live-bar";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", name);
    const button = Object.assign(doc.createElement("button"), {
      type: "button", className: "live-run", textContent: "Run",
      title: "Runs the cell in this page (Ctrl+Enter in the editor)" });
    const editButton = Object.assign(doc.createElement("button"),
      { type: "button", className: "live-edit", textContent: "Edit" });
    const output = Object.assign(doc.createElement("div"),
      { className: "live-output", hidden: true });
    output.setAttribute("role", "status");
    output.setAttribute("aria-live", "polite");
    output.append(doc.createElement("pre"));
    bar.append(button, editButton);
    const scaffold = source.closest(".code-copy-outer-scaffold") || source;
    scaffold.after(bar, output);
    const cell = { node, name, button, edit: editButton, output, original,
      label: node.id || node.querySelector("[id]")?.id, ran: null,
      code: scaffold, text: () => original };
    const position = cells.length;
    const onRun = (fromKeys = false) => run(config, cells, position,
      fromKeys === true);
    button.addEventListener("click", onRun);
    editButton.onclick = () => edit(cell, onRun);
    cells.push(cell);
  });
  return cells;
}

const configNode = typeof document === "undefined" ? null
  : document.getElementById("live-config");
if (configNode && setUp(document, JSON.parse(configNode.textContent)).length) {
  for (const note of document.querySelectorAll(".live-note")) {
    note.hidden = false;
  }
}
