// The live cells' Python, off the page's thread (explorers/live.js starts
// this worker on the first Run): the page stays responsive while a cell
// runs, and a cell that never ends is stopped by ending the worker.
//
// Messages in: {start: {runtime, files, package, prelude}} (absolute
// URLs), then {source}. Out: {ready: true}, {ok, text} or {error}.

let live = null;

async function start({ runtime, files, package: names, prelude }) {
  const { loadPyodide } = await import(new URL("pyodide.mjs", runtime).href);
  const py = await loadPyodide({ indexURL: runtime });
  for (const name of names) {
    const response = await fetch(new URL(name, files));
    if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
    const path = `/home/pyodide/live/${name}`;
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, await response.text());
  }
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/live')");
  live = py.pyimport("live");
  if (prelude) {
    const [ok, text] = run(prelude);
    if (!ok) throw new Error(`the page's set-up failed: ${text}`);
  }
}

function run(source) {
  const result = live.run(source);
  const [ok, text] = result.toJs();
  result.destroy();
  return [ok, text];
}

self.onmessage = async ({ data }) => {
  try {
    if (data.start) {
      await start(data.start);
      self.postMessage({ ready: true });
    } else {
      const [ok, text] = run(data.source);
      self.postMessage({ ok, text });
    }
  } catch (error) {
    self.postMessage({ error: String(error.message || error) });
  }
};
