// Live Python cells: a page's cells of class "live" (pure Python, no
// torch) can be edited and run in the reader's browser. Python is
// Pyodide, loaded from the site's own pyodide/ folder on the first Run
// only, so a page that is just read weighs what it did, and nothing is
// requested from another site. booktools/live.py writes the page's
// set-up (#live-config) and puts the runtime into the site.
//
// The cells share one namespace, as in a notebook. Running a cell first
// runs every earlier live cell that has not run in its current text,
// except other exercises' checks: a check always sees the current
// answer above it, whether or not the reader pressed its Run.

const STARTING = "Starting Python in this page: the first Run loads it " +
  "from this site, which takes a few seconds…";

/** A cell's label, from its id: "cell-check-tanh" → "check-tanh". */
export function cellLabel(id) {
  return (id || "").replace(/^cell-/, "");
}

/** The earlier cells to run before cells[index]: those not run in their
 *  current text, leaving out check cells. Each entry has label, ran and
 *  text() (the source now). */
export function staleBefore(cells, index) {
  return cells.slice(0, index).filter((cell) =>
    !cellLabel(cell.label).startsWith("check-") && cell.ran !== cell.text());
}

let runtime = null;

/** Pyodide with the book's files and the runner, loaded once. */
function python(config) {
  runtime ??= (async () => {
    const base = new URL(config.runtime, document.baseURI).href;
    const { loadPyodide } = await import(new URL("pyodide.mjs", base).href);
    const py = await loadPyodide({ indexURL: base });
    const files = new URL(config.files, document.baseURI);
    for (const name of config.package) {
      const response = await fetch(new URL(name, files));
      if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
      const path = `/home/pyodide/live/${name}`;
      py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      py.FS.writeFile(path, await response.text());
    }
    py.runPython("import sys; sys.path.insert(0, '/home/pyodide/live')");
    const live = py.pyimport("live");
    if (config.prelude) {
      const [ok, text] = live.run(config.prelude).toJs();
      if (!ok) throw new Error(`the page's set-up failed: ${text}`);
    }
    return live;
  })();
  return runtime;
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

function execute(live, cell) {
  const source = cell.text();
  const result = live.run(source);
  const [ok, text] = result.toJs();
  result.destroy();
  cell.ran = source;
  show(cell, text, !ok);
  return ok;
}

async function run(config, cells, index) {
  const cell = cells[index];
  cell.button.disabled = true;
  show(cell, runtime ? "Running…" : STARTING);
  try {
    const live = await python(config);
    await new Promise((resolve) => setTimeout(resolve, 0)); // paint first
    for (const earlier of staleBefore(cells, index)) {
      if (!execute(live, earlier)) {
        show(cell, "Not run: an earlier code cell on this page failed " +
          "(its output, above, says why). Fix it, then run this one.", true);
        return;
      }
    }
    execute(live, cell);
  } catch (error) {
    runtime = null; // try again on the next Run
    show(cell, `Python could not start in this page (${error.message}). ` +
      "The code and output above are the book's own run.", true);
  } finally {
    cell.button.disabled = false;
  }
}

/** Edit: the code becomes a text box, which Ctrl+Enter runs. */
function edit(cell, onRun) {
  const box = document.createElement("textarea");
  box.className = "live-editor";
  box.spellcheck = false;
  box.value = cell.original;
  const fit = () => { box.rows = box.value.split("\n").length + 1; };
  fit();
  box.addEventListener("input", fit);
  box.setAttribute("aria-label", `${cell.name}: Python code, editable. ` +
    "Tab leaves the box; Ctrl+Enter runs the cell.");
  box.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onRun();
    }
  });
  cell.code.hidden = true;
  cell.code.after(box);
  cell.text = () => box.value;
  cell.edit.textContent = "Reset";
  cell.edit.onclick = () => {
    box.remove();
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
    const button = doc.createElement("button");
    button.type = "button";
    button.className = "btn btn-sm btn-outline-primary";
    button.textContent = "Run";
    button.title = "Runs the cell in this page (Ctrl+Enter in the editor)";
    const editButton = doc.createElement("button");
    editButton.type = "button";
    editButton.className = "btn btn-sm btn-outline-secondary";
    editButton.textContent = "Edit";
    const output = doc.createElement("div");
    output.className = "live-output";
    output.setAttribute("role", "status");
    output.setAttribute("aria-live", "polite");
    output.hidden = true;
    output.append(doc.createElement("pre"));
    bar.append(button, editButton);
    const scaffold = source.closest(".code-copy-outer-scaffold") || source;
    scaffold.after(bar, output);
    const cell = { node, name, button, edit: editButton, output, original,
      label: node.id || node.querySelector("[id]")?.id, ran: null,
      code: scaffold, text: () => original };
    const position = cells.length;
    const onRun = () => run(config, cells, position);
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
