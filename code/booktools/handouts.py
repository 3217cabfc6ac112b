"""The lecture slides printed by a Chromium-family browser (render.py
gives it): the handouts, two slides to an A4 or Letter sheet with ruled
space for notes, and the instructor's copies, on A4 and on Letter, each
slide with its speaker notes beneath it, two slides a sheet where their
notes fit. Each is Reveal.js's print view (`?print-pdf`), its pages moved
onto sheets by a small script (slides/slides.css styles them), printed on
the sheet's paper."""

NOTES_FONT = 15  # px on a sheet 793.7 px wide: 11 pt on A4 paper


# The instructor's copy: each slide centred across the sheet (A4 or
# Letter), `frame` px wide, and its notes below it, taken out of the
# slide (where Reveal.js prints them over its foot, `showNotes=true`), at
# `font` px; two slides a sheet where both fit with their notes, else one.
NOTES_SHEETS = """([paper, w, h, font, frame]) => {
  const pages = [...document.querySelectorAll('.pdf-page')];
  const slides = pages[0].parentNode;
  document.head.appendChild(document.createElement('style')).textContent = `
    @page { size: ${paper}; margin: 0; } :root { --sheet-w: ${w}px;
    --sheet-h: ${h - 1}px; --frame-w: ${frame}px; --notes-font: ${font}px;
    --frame-scale: ${frame / pages[0].offsetWidth}; }`;
  let sheet = null, shown = 0;
  const fresh = () => {
    sheet = slides.appendChild(document.createElement('div'));
    sheet.className = 'notes-sheet';
  };
  pages.forEach((page, i) => {
    const item = document.createElement('div');
    item.innerHTML = `<div class="handout-frame"></div><p>slide ${i + 1}
      of ${pages.length}</p>`;
    const notes = page.querySelector('.speaker-notes-pdf');
    item.firstChild.appendChild(page);
    if (notes) { item.appendChild(notes); shown += 1; }
    if (!sheet || sheet.children.length === 2) fresh();
    sheet.appendChild(item);
    if (sheet.children.length === 2
        && sheet.scrollHeight > sheet.clientHeight) {
      fresh();  // the two do not fit: this slide starts the next sheet
      sheet.appendChild(item);
    }
  });
  return shown;
}"""


# The handouts: Reveal.js's pages, `per` a sheet, w x h px (slides.css),
# each across 90 % of the text block, so that its smallest type prints at
# 7 pt or more, with its number and ruled lines for notes beneath it.
SHEETS = """([paper, w, h, per]) => {
  const pages = [...document.querySelectorAll('.pdf-page')];
  const slides = pages[0].parentNode, frame = 0.9 * (w - 96);
  document.head.appendChild(document.createElement('style')).textContent = `
    @page { size: ${paper}; margin: 0; } :root { --sheet-w: ${w}px;
    --sheet-h: ${h - 1}px; --per: ${per}; --frame-w: ${frame}px;
    --frame-scale: ${frame / pages[0].offsetWidth}; }`;
  const lines = `<div class="handout-notes">${'<div></div>'.repeat(8)}</div>`;
  pages.forEach((page, i) => {
    if (i % per === 0) slides.appendChild(document.createElement('div'))
      .className = 'handout';
    const row = slides.lastChild.appendChild(document.createElement('div'));
    row.innerHTML = `<div class="handout-frame"></div><p>slide ${i + 1}
      of ${pages.length}</p>${lines}`;
    row.querySelector('.handout-frame').appendChild(page);
  });
}"""
PAPER = {"A4": [793.7, 1122.5, 2], "letter": [816, 1056, 2]}  # px, slides
# The notes copies' slides, on either paper: as wide as the A4 handout's,
# the narrowest at which their type prints at 7 pt, so that two slides
# with their notes share a Letter sheet as often as an A4 one
NOTES_FRAME = 0.9 * (PAPER["A4"][0] - 96)


def print_all(deck_url, args, handout, letter, notes, notes_letter):
    """The A4 and Letter handouts and the notes copies (A4 and Letter),
    from the deck at deck_url; how many slides' notes each copy shows, or
    None when no browser starts (browser.py)."""
    from playwright.sync_api import sync_playwright

    from booktools import browser

    with sync_playwright() as p:
        chromium = browser.launch(p, args)
        if chromium is None:
            return None
        try:
            url = deck_url + "?print-pdf"
            for pdf, paper in ((handout, "A4"), (letter, "letter")):
                print_pdf(chromium, url, pdf, SHEETS, [paper, *PAPER[paper]])
            return [print_pdf(chromium, url + "&showNotes=true", pdf,
                              NOTES_SHEETS, [paper, *PAPER[paper][:2],
                                             NOTES_FONT, NOTES_FRAME])
                    for pdf, paper in ((notes, "A4"),
                                       (notes_letter, "letter"))]
        finally:
            chromium.close()


def print_pdf(chromium, url, pdf, layout, arg):
    """url printed to pdf on its CSS's paper, once Reveal.js has laid out
    its print pages and layout(arg) has run; what layout returns."""
    page = chromium.new_page()
    page.goto(url)
    page.wait_for_function("window.Reveal && Reveal.isReady() && "
                           "!!document.querySelector('.pdf-page')")
    result = page.evaluate(layout, arg)
    # a code line's number (an empty link) would print as a link to this
    # build's own file
    page.evaluate("document.querySelectorAll('a[href=\"\"], a[href^=\"#\"]')"
                  ".forEach((a) => a.removeAttribute('href'))")
    pdf.parent.mkdir(parents=True, exist_ok=True)
    page.pdf(path=str(pdf), prefer_css_page_size=True, print_background=True)
    page.close()
    return result
