// The page checks that need a second browser: run by tests/test_render.py
// in Firefox (Debian's firefox-esr, or BOOK_FIREFOX), driven by
// puppeteer-core over WebDriver BiDi. Prints, as JSON, each slide that
// runs past the deck's box, each formula whose punctuation starts a
// line, and each widget that did not answer, for the site at the origin
// given.
//   node tests/js/firefox.mjs ORIGIN FIREFOX
import puppeteer from "puppeteer-core";

const [origin, executablePath] = process.argv.slice(2);
const browser = await puppeteer.launch({ browser: "firefox", executablePath,
  headless: true });
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 720 });
  await page.goto(`${origin}/slides/backprop.html`, { waitUntil: "load" });
  await page.waitForFunction("window.Reveal && Reveal.isReady()");
  const slides = await page.evaluate(async () => {
    const past = [];
    for (const slide of Reveal.getSlides()) {
      Reveal.slide(...Object.values(Reveal.getIndices(slide)));
      await new Promise((done) => setTimeout(done, 100));
      // the lowest edge of its content, speaker notes aside, as the
      // Chromium test measures it
      const bottom = Math.max(...[...slide.children]
        .filter((c) => c.tagName !== "ASIDE")
        .map((c) => c.offsetTop + c.offsetHeight));
      if (bottom > Reveal.getConfig().height) past.push(slide.id);
    }
    return past;
  });
  const broken = [];  // a formula and its punctuation on two lines
  for (const name of ["backprop", "autograd", "deep", "by-hand"]) {
    await page.setViewport({ width: 390, height: 800 });
    await page.goto(`${origin}/chapters/${name}.html`, { waitUntil: "load" });
    broken.push(...await page.evaluate(() => {
      const found = [];
      for (const math of document.querySelectorAll("main math")) {
        const next = math.nextSibling;
        if (!next || next.nodeType !== 3 || !/^[,.;:)!?]/.test(next.data)) {
          continue;
        }
        const mark = document.createRange();
        mark.setStart(next, 0);
        mark.setEnd(next, 1);
        const rects = math.getClientRects();
        const last = rects[rects.length - 1];
        // the mark's line is below the formula's last line: it starts one
        if (last && mark.getBoundingClientRect().top >= last.bottom - 2) {
          found.push(`${location.pathname}: ${next.data.slice(0, 12)}`);
        }
      }
      return found;
    }));
  }
  // the widgets answer in Firefox too: the stepper, a question, the
  // depth explorer and a live cell (Pyodide in a worker, CodeMirror)
  const widgets = [];
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${origin}/chapters/by-hand.html`, { waitUntil: "load" });
  await page.waitForSelector('[data-explorer="step"][data-ready="true"]');
  await page.focus("#step-explorer-app-step");
  for (const key of ["Enter", "Enter", "ArrowRight"]) {
    await page.keyboard.press(key);
  }
  const stepped = await page.$eval("#step-explorer-app-summary",
    (p) => p.textContent);
  if (!stepped.startsWith("Step 3 of ")) widgets.push(`stepper: ${stepped}`);
  await page.waitForSelector(".quiz-question");
  const answered = await page.evaluate(() => {
    const form = document.querySelector(".quiz-question");
    form.querySelector("input").click();
    form.querySelector(".quiz-check").click();
    return form.querySelector(".quiz-feedback").textContent;
  });
  if (!answered.trim()) widgets.push("question: no feedback");
  await page.click(".live-bar button");
  const ran = await page.waitForFunction(() => {
    const out = document.querySelector(".live-output pre");
    return out && !/Starting|Running/.test(out.textContent) &&
      out.textContent.trim();
  }, { timeout: 120000 }).then((h) => h.jsonValue(), (e) => `${e}`);
  if (/could not|Error/.test(ran)) widgets.push(`live cell: ${ran}`);
  // its editor: a nested function, typed with Enter and Tab, runs
  await page.click(".live-bar .live-edit");
  await page.waitForSelector(".cm-content:focus", { timeout: 30000 });
  const press = async (keys) => {
    const [key, ...held] = keys.split("+").reverse();
    for (const modifier of held) await page.keyboard.down(modifier);
    await page.keyboard.press(key);
    for (const modifier of held) await page.keyboard.up(modifier);
  };
  await press("Control+a");
  await press("Delete");
  for (const keys of ["def outer(x):", "Enter", "def inner():", "Enter",
    "return 2 * x", "Enter", "Shift+Tab", "Shift+Tab", "Tab",
    "return inner() + 1", "Enter", "Enter", "Shift+Tab", "outer(20)"]) {
    await (/^(Shift\+)?(Tab|Enter|Delete)$/.test(keys) ? press(keys)
      : page.keyboard.type(keys));
  }
  await press("Control+Enter");
  const typed = await page.waitForFunction(() => {
    const out = document.querySelector(".live-output pre").textContent;
    return !/Starting|Running/.test(out) && out;
  }, { timeout: 60000 }).then((h) => h.jsonValue(), (e) => `${e}`);
  if (typed.trim() !== "41") widgets.push(`live editor: ${typed}`);
  await page.goto(`${origin}/chapters/deep.html`, { waitUntil: "load" });
  await page.waitForSelector('[data-explorer="depth"][data-ready="true"]');
  const before = await page.$eval("#depth-explorer-app-summary",
    (p) => p.textContent);
  await page.select("#depth-explorer-app-activation", "relu");
  const after = await page.$eval("#depth-explorer-app-summary",
    (p) => p.textContent);
  if (after === before || !after.startsWith("ReLU")) {
    widgets.push(`depth explorer: ${after}`);
  }
  console.log(JSON.stringify({ slides, broken, widgets }));
} finally {
  await browser.close();
}
