// Live Python cells: a page's cells of class "live" (pure Python, no
// torch) can be edited and run in the reader's browser. Python is
// Pyodide, loaded from the site's own pyodide/ folder on the first Run
// only, so a page that is just read weighs what it did, and nothing is
// requested from another site. Edit opens CodeMirror 6, loaded on the
// first Edit only from the site's codemirror/ folder, which the page's
// import map names. booktools/live.py writes the page's set-up
// (#live-config, the import map) and puts both into the site.
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

let editorModules = null;

/** CodeMirror's modules, imported on the first Edit. */
function loadEditor() {
  editorModules ??= Promise.all(["codemirror", "@codemirror/view",
    "@codemirror/state", "@codemirror/commands", "@codemirror/language",
    "@codemirror/lang-python", "@lezer/highlight",
    "@codemirror/autocomplete"].map((name) =>
    import(name)));
  return editorModules;
}

/** Python coloured as the page colours its code, in either theme: each
 *  tag takes the colour that Quarto's theme gives pandoc's token class
 *  (--quarto-hl-kw-color and so on). A string standing as a statement, a
 *  docstring, is a comment there, as pandoc has it. */
function pageColours(tags, HighlightStyle) {
  return HighlightStyle.define([
    [tags.controlKeyword, "cf"], [tags.keyword, "kw"],
    [tags.moduleKeyword, "im"], [[tags.bool, tags.null], "va"],
    [tags.string, "st"], [tags.special(tags.string), "ss"],
    [[tags.comment, tags.docString], "co"], [tags.number, "fl"],
    [tags.meta, "at"],
    [[tags.arithmeticOperator, tags.compareOperator, tags.updateOperator,
      tags.definitionOperator, tags.bitwiseOperator], "op"],
  ].map(([tag, token]) => ({ tag, color: `var(--quarto-hl-${token}-color)` })));
}

/** The cell's code in CodeMirror, in a box like the page's code: Tab
 *  indents by four spaces, Escape then Tab leaves (CodeMirror's way out
 *  for the keyboard), Ctrl+Enter runs the cell. Completions come only on
 *  Ctrl+Space: offered while typing, Enter would take one for a new line. */
function codeEditor(cell, onRun, modules) {
  const [{ basicSetup }, { EditorView, keymap }, { Prec },
    { indentWithTab }, { HighlightStyle, indentUnit, syntaxHighlighting },
    { python, pythonLanguage }, { tags, styleTags },
    { autocompletion }] = modules;
  const docstrings = pythonLanguage.configure({ props: [styleTags({
    "ExpressionStatement/String": tags.docString })] });
  const box = document.createElement("div");
  box.className = "sourceCode live-editor";
  const view = new EditorView({ parent: box, doc: cell.original,
    extensions: [
      Prec.highest(keymap.of([{ key: "Mod-Enter",
        run: () => { onRun(true); return true; } }])),
      basicSetup, keymap.of([indentWithTab]), indentUnit.of("    "),
      autocompletion({ activateOnTyping: false }),
      docstrings, python().support, // long lines scroll: a wrapped one
      // would go on at the margin, where it reads as a new statement
      syntaxHighlighting(pageColours(tags, HighlightStyle)),
      EditorView.contentAttributes.of({ "aria-label": `${cell.name}: ` +
        "Python code, editable. Tab indents; Escape then Tab at once " +
        "leaves the editor; Ctrl+Enter runs the cell." }),
    ] });
  return { box, text: () => view.state.doc.toString(),
    focus: () => view.focus(), close: () => view.destroy(),
    hint: "Tab indents and Shift+Tab outdents. To leave the editor with " +
      "the keyboard, press Escape and then Tab at once (Escape twice if " +
      "text is selected). Ctrl+Enter (Cmd+Enter on a Mac) runs the cell; " +
      "Reset brings back the book's code." };
}

/** Edit: the code becomes an editor, which Ctrl+Enter runs. */
async function edit(cell, onRun) {
  cell.edit.onclick = null; // one editor, however often Edit is pressed
  let editor;
  try {
    editor = codeEditor(cell, onRun, await loadEditor());
  } catch (error) {
    show(cell, `The editor could not start in this page (${error.message}).`,
      true);
    cell.edit.onclick = () => edit(cell, onRun);
    return;
  }
  const hint = document.createElement("p");
  hint.className = "live-hint";
  hint.textContent = editor.hint;
  cell.code.hidden = true;
  cell.code.after(editor.box, hint);
  cell.text = editor.text;
  cell.edit.textContent = "Reset";
  cell.edit.onclick = () => {
    editor.close();
    editor.box.remove();
    hint.remove();
    cell.code.hidden = false;
    cell.text = () => cell.original;
    cell.edit.textContent = "Edit";
    cell.edit.onclick = () => edit(cell, onRun);
    cell.edit.focus();
  };
  editor.focus();
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
