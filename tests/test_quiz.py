"""The check-your-understanding questions: well formed, placed at the
end of every main section, numeric answers computed by the chapters and
checked here against values derived by hand or by autograd, their code
and maths passed on as Markdown to every output, and the widget tested in
Chromium, on a page whose questions Quarto's pandoc rendered (so those
tests need Quarto, as the rendered book and PDF checks at the end do)."""

import html
import json
import math
import re
import shutil
import subprocess

import pytest
import torch
from browser import WatchedPage, axe_violations, chromium, serve

from booktools import ROOT, quiz

QUESTIONS = quiz.load()
NOT_MAIN = ("summary", "reading", "exercises")  # how those ids end
QUARTO = shutil.which("quarto")
# Markdown's code and maths spans, and what must not be left outside them:
# maths written in Unicode (δ⁽ˡ⁾, ∂L/∂b, σ′, ×, −), code-like text (a
# dotted name, an underscore, a call, an assignment or an equation) and a
# single letter that names a variable ("layer l"; "a" is also a word)
SPAN = re.compile(r"`[^`]+`|\$[^$]+\$")
PLAIN_MATHS_OR_CODE = re.compile(
    r"[δ∂σϕφ⊙√±×·′⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁽⁾←−∈≤≥]|\.[A-Za-z_]|\w_\w|\w\("
    r"|[-+*]?=|(?<![\w'’\\])[b-hj-z](?![\w'’])")


def main_sections(name):
    text = (ROOT / "chapters" / f"{name}.qmd").read_text()
    found = re.findall(r"^## .*\{#(sec-[\w-]+)\}", text, re.MULTILINE)
    return [s for s in found if not s.endswith(NOT_MAIN)]


@pytest.mark.parametrize("name", list(QUESTIONS))
def test_every_main_section_ends_with_one_to_three_questions(name):
    text = (ROOT / "chapters" / f"{name}.qmd").read_text()
    assert list(QUESTIONS[name]) == main_sections(name)
    for section, questions in QUESTIONS[name].items():
        assert 1 <= len(questions) <= 3, section
        assert f"#| label: quiz-{section}" in text, section
        # the block sits at the end of its section: before the next "## "
        after = text.split(f"#| label: quiz-{section}", 1)[1]
        assert "\n## " in after or section == main_sections(name)[-1]
        assert not re.search(r"\{#sec-", after.split("\n## ", 1)[0])


def test_each_question_is_well_formed():
    kinds = set()
    for chapter in QUESTIONS.values():
        for questions in chapter.values():
            for q in questions:
                kinds.add(q["kind"])
                assert q["prompt"].strip()
                if q["kind"] == "choice":
                    assert sum(bool(c.get("correct"))
                               for c in q["choices"]) == 1, q["id"]
                    assert all(c["why"].strip() for c in q["choices"])
                else:
                    assert q["why"].strip() and q["hint"].strip()
                    # rounded to digits, or a count, which is exact
                    assert ("digits" in q) != ("count" in q), q["id"]
                    assert isinstance(q.get("digits", 0), int)
    assert kinds == {"choice", "number"}


def test_every_count_is_marked_as_one():
    # "how many bytes" asks for a count; "how many times ..." for a ratio
    asked = re.compile(r"\bhow many (?!times\b)(\w+)", re.IGNORECASE)
    counts = {}
    for _, _, q in every_question():
        if q["kind"] == "number":
            found = asked.search(q["prompt"])
            assert bool(found) == ("count" in q), q["id"]
            if found:
                counts[q["id"]] = q["count"]
                assert found.group(1) == q["count"], q["id"]  # its unit
    assert counts == {"saved-per-layer": "bytes"}


def test_numeric_answers_match_independent_references(run_chapter):
    w = torch.tensor(0.7, requires_grad=True)
    b = torch.tensor(-0.5, requires_grad=True)
    (0.5 * (torch.sigmoid(w * 2.0 + b) - 0.1) ** 2).backward()
    forward = 2 * 128 * (64 * 64 * 2 + 64)
    # the pencil network, by torch.autograd: dL/dx_1 for x = (1, 2)
    x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    hidden = torch.sigmoid(torch.tensor(
        [[0.4, -0.3], [0.2, 0.1]], dtype=torch.float64) @ x
        + torch.tensor([0.1, -0.2], dtype=torch.float64))
    out = hidden @ torch.tensor([2.0, -1.0], dtype=torch.float64) + 0.3
    (0.5 * (out - 1.0) ** 2).backward()
    # each value, and the answer the widget grades by, rounded by hand
    expected = {
        ("backprop", "numeric-bias"): (b.grad.item(), "0.1256"),
        ("backprop", "pencil-input"): (x.grad[0].item(), "-0.0450"),
        ("autograd", "backward-ratio"): (
            (2 * forward - 2 * 128 * 64 * 64) / forward, "1.50"),
        # one float32 ReLU output of 128 x 64 per layer, stored once
        ("autograd", "saved-per-layer"): (128 * 64 * 4, "32768"),
        ("deep", "ten-gates"): (0.25 ** 10, "9.54e-7"),
        # 1/6, of which the chapter measures a sample: within 1 per cent
        ("deep", "linear-default"): (1 / 6, "0.17", 0.01),
        ("by-hand", "mul-gradient"): (5 * -2.0, "-10.0"),
        ("by-hand", "paths-add"): (2.0 + 1, "3.0"),
        ("by-hand", "walk-weight"): (2 * (0.5 * 2 - 3 - 1) * 2, "-12.0"),
    }
    seen = set()
    for chapter, sections in QUESTIONS.items():
        for questions in sections.values():
            for q in questions:
                if q["kind"] != "number":
                    continue
                seen.add((chapter, q["id"]))
                value = run_chapter(chapter).value(f"float({q['answer']})")
                reference, answer, *rel = expected[(chapter, q["id"])]
                assert math.isclose(value, reference,
                                    rel_tol=rel[0] if rel else 1e-6), q["id"]
                assert quiz.rounded(q, value) == answer, q["id"]
    assert seen == set(expected)


def test_the_answer_is_rounded_from_the_exact_value_by_hand_rules():
    two, one = {"digits": 2}, {"digits": 0}
    three = {"digits": 3, "significant": True}
    # ties go away from zero, on the decimal the value reads as: Python's
    # own format, on the binary float, gives 0.12, 1.00, 2 and 2.67
    assert quiz.rounded(two, 0.125) == "0.13"
    assert quiz.rounded(two, -0.125) == "-0.13"
    assert quiz.rounded(two, 1.005) == "1.01"
    assert quiz.rounded(one, 2.5) == "3"
    assert quiz.rounded(two, 2.675) == "2.68"
    assert quiz.rounded(two, 0.1 + 0.2) == "0.30"  # no float artefact
    assert quiz.rounded(two, 1.5038759) == "1.50"
    assert quiz.rounded({"digits": 1}, -10.0) == "-10.0"
    assert quiz.rounded({"digits": 4}, 0.12555031) == "0.1256"
    assert quiz.rounded(three, 0.25 ** 10) == "9.54e-7"
    assert quiz.rounded(three, -0.0012345) == "-1.23e-3"
    assert quiz.rounded(three, 9.9951e-7) == "1.00e-6"  # one digit up
    assert quiz.rounded(three, 123456) == "1.23e5"
    assert quiz.rounded({"count": "bytes"}, 32768.0) == "32768"
    with pytest.raises(ValueError, match="is a count"):
        quiz.rounded({"id": "half", "count": "bytes"}, 32767.5)
    # what the reader sees is that rounded answer, formatted as the prose;
    # the widget also gets the value in full, to judge a reply that gives
    # fewer digits than asked (2, not 1, is 1.5039 to no decimals)
    q = {"digits": 3, "significant": True, "answer": "0.25 ** 10"}
    assert quiz.shown_answer(q, {}) == ("9.54 × 10⁻⁷", "9.54e-7",
                                        "9.5367431640625e-07")
    q = {"count": "bytes", "answer": "128 * 64 * 4.0"}
    assert quiz.shown_answer(q, {}) == ("32,768", "32768", "32768.0")
    q = {"digits": 2, "answer": "1.005"}
    assert quiz.shown_answer(q, {}) == ("1.01", "1.01", "1.005")
    q = {"digits": 1, "answer": "-9.95"}
    assert quiz.shown_answer(q, {}) == ("−10.0", "-10.0", "-9.95")
    q = {"digits": 2, "answer": "2 - 4096 / 8256"}
    assert quiz.shown_answer(q, {}) == ("1.50", "1.50", "1.503875968992248")


def test_one_block_holds_every_form_in_its_own_div():
    namespace = {"yt": torch.tensor(3.0)}
    namespace["yt"].grad = torch.tensor(3.0)
    printed = quiz.block("by-hand", "sec-paths", namespace)
    divs = re.findall(r'^::::::: \{\.content-visible when-format="(\w+)"\}$',
                      printed, re.MULTILINE)
    assert divs == ["html", "typst", "ipynb"]
    assert printed.count("\n:::::::\n") + printed.endswith(
        "\n:::::::") == 3  # each div closed
    page, box, notebook = (quiz.form(printed, f) for f in divs)
    assert page.startswith('::::: {.quiz data-quiz="sec-paths"}')
    assert 'when-profile="instructor"' in box and "<details>" not in box
    assert "<details><summary>Answer</summary>" in notebook
    assert "3.0. $y$ reaches $z$" in notebook  # the answer, then why
    assert "::::" not in notebook and "when-format" not in notebook


def test_the_grading_rule_is_said_where_a_number_is_asked():
    namespace = {"gx": torch.tensor(-10.0)}
    printed = quiz.block("by-hand", "sec-local", namespace)  # a number
    page, box, notebook = (quiz.form(printed, f) for f in quiz.FORMATS)
    rule = ("A number is right when, rounded to the digits asked, it "
            "equals the answer: more digits are fine, and a count must be "
            "exact.")
    # the widget adds what only it does (quiz.js's grading(), tested in
    # tests/js/quiz.test.js and in the page below)
    assert f'<p class="quiz-rule">{rule}</p>' in page
    # outside the course edition's hidden note: every edition says it
    assert page.index("quiz-rule") < page.index("**Question")
    for text in (box, notebook):  # which do not grade: no "close"
        assert text.count(rule) == 1 and "close" not in text
    printed = quiz.block("by-hand", "sec-topo", {})  # a choice only
    assert "digits asked" not in printed


def test_notebook_form_round_trips_through_the_cell_output():
    # what the student notebook reads: the quiz cell's printed output
    namespace = {"gx": torch.tensor(-10.0)}
    mine = [(n, q) for n, s, q in quiz.numbered("by-hand")
            if s == "sec-local"]
    printed = str(quiz.block("by-hand", "sec-local", namespace)) + "\n"
    assert quiz.form(printed) == quiz._notebook(mine, namespace)
    # the answer key is for the PDF only: a notebook gets nothing from it
    key = quiz.key("deep", {"default_gain": 1 / 6})
    assert quiz.form(key) == "" and quiz.form(key, "typst").startswith(
        ':::: {.content-hidden when-profile="instructor"}\n'
        '::: {.content-hidden when-profile="course"}')
    assert "**Answers to the questions.**" in key


def test_quiz_reads_no_environment_and_keeps_no_state():
    source = (ROOT / "code" / "booktools" / "quiz.py").read_text()
    assert not re.search(r"\bos\b|environ\b|getenv", source)
    assert not hasattr(quiz, "NOTEBOOK")
    namespace = {"gx": torch.tensor(-10.0)}
    first = quiz.block("by-hand", "sec-local", namespace)
    quiz.block("by-hand", "sec-topo", namespace)
    assert quiz.block("by-hand", "sec-local", namespace) == first


def texts(q):
    """Every Markdown text of a question: prompt, choices, hint, reasons."""
    choices = q.get("choices", [])
    return [q["prompt"], *(c["text"] for c in choices),
            *(c["why"] for c in choices),
            *(q[k] for k in ("hint", "why") if k in q)]


def every_question():
    for chapter, sections in QUESTIONS.items():
        for section, questions in sections.items():
            for q in questions:
                yield chapter, section, q


def test_the_check_for_plain_maths_and_code_catches_them():
    for plain in ["the blame δ⁽ˡ⁾", "of layer l have", "what gradient ∂L/∂b",
                  "every push_grad", "add into .grad", "with += instead",
                  "torch.randn(3)", "E[x²] = Var(z)/2", "y = −2", "5 × 2"]:
        assert PLAIN_MATHS_OR_CODE.search(SPAN.sub("", plain)), plain
    for markdown in ["the blame $\\boldsymbol\\delta^{(l)}$ of layer $l$",
                     "every `push_grad` adds into `.grad` with `+=`",
                     "a value's blame, 0.25, by 8 (four decimals)"]:
        assert not PLAIN_MATHS_OR_CODE.search(SPAN.sub("", markdown))


def test_texts_write_code_and_maths_as_markdown():
    # issue 20: "layer l" in upright type reads as "layer 1", "δ⁽ˡ⁾" pulls
    # in a fallback font, `push_grad` printed in the serif body font
    plain = {}
    for _, _, q in every_question():
        for text in texts(q):
            rest = SPAN.sub("", text)
            assert "`" not in rest and "$" not in rest, text  # all closed
            found = PLAIN_MATHS_OR_CODE.findall(rest)
            if found:
                plain.setdefault(q["id"], []).extend(found)
    assert plain == {}
    delta = next(q for *_, q in every_question() if q["id"] == "delta-size")
    assert delta["prompt"] == ("How many entries does the blame "
                               "$\\boldsymbol\\delta^{(l)}$ of layer $l$ "
                               "have?")  # as the chapter writes it


def test_every_form_passes_the_markdown_on(monkeypatch):
    # a numeric answer's value does not matter here
    monkeypatch.setattr(quiz, "shown_answer",
                        lambda q, namespace: ("1.0", "1.0", "1.0"))
    spans = 0
    for chapter, sections in QUESTIONS.items():
        for section in sections:
            printed = quiz.block(chapter, section, {})
            page, box, notebook = (quiz.form(printed, f)
                                   for f in quiz.FORMATS)
            for _, s, q in quiz.numbered(chapter):
                if s != section:
                    continue
                asked = [q["prompt"], *(c["text"] for c in
                                        q.get("choices", []))]
                for text in asked:  # verbatim: each span as written
                    assert text in page and text in box, q["id"]
                    assert text in notebook, q["id"]
                    spans += len(SPAN.findall(text))
                for text in texts(q):  # rendered on the site, shown later
                    assert text in page, q["id"]
                # the instructor edition's answer, with its reason
                assert quiz._answer_line(q, {}) in box
    assert spans > 40  # backticks and dollars reach the Typst form


def test_page_data_holds_only_what_the_checking_needs():
    namespace = {"gx": torch.tensor(-10.0)}
    page = quiz.form(quiz.block("by-hand", "sec-local", namespace), "html")
    payload = re.search(r'<script type="application/json">(.*?)</script>',
                        page).group(1)
    assert json.loads(payload) == {"questions": [{
        "id": "mul-gradient", "kind": "number", "answer": "-10.0",
        "exact": "-10.0", "shown": "−10.0", "digits": 1, "significant": False,
        "count": None}]}
    (n, _, topo), = [x for x in quiz.numbered("by-hand")
                     if x[1] == "sec-topo"]
    page = quiz.form(quiz.block("by-hand", "sec-topo", {}), "html")
    payload = re.search(r'<script type="application/json">(.*?)</script>',
                        page).group(1)
    assert json.loads(payload) == {"questions": [{
        "id": "reverse-order", "kind": "choice", "right": quiz._right(topo)}]}
    # the texts are Markdown in the page: the prompt, then the choices as
    # a list, then each choice's reason, hidden until quiz.js shows it
    assert page.index(f"**Question {n}.**") < page.index(
        "::: {.quiz-choices}") < page.index('::: {.quiz-why hidden=""}')
    assert page.count('::: {.quiz-why hidden=""}') == 3


def rendered(markdown):
    """Markdown as Quarto's pandoc renders it for the site: maths as
    MathML (html-math-method: mathml), code as <code>."""
    if QUARTO is None:
        pytest.skip("Quarto is not on PATH: the questions' Markdown cannot "
                    "be rendered here (CI installs Quarto 1.10)")
    return subprocess.run(
        [QUARTO, "pandoc", "-f", "markdown", "-t", "html5", "--mathml"],
        input=markdown, capture_output=True, text=True, check=True).stdout


# a number, choices, maths, code; and choices that are all maths
PAGE_SECTIONS = [("by-hand", "sec-local"), ("by-hand", "sec-topo"),
                 ("by-hand", "sec-paths"), ("by-hand", "sec-freed"),
                 ("by-hand", "sec-softmax"), ("autograd", "sec-cost")]


@pytest.fixture(scope="module")
def quiz_page(tmp_path_factory):
    root = tmp_path_factory.mktemp("quiz-page")
    (root / "explorers").mkdir()
    for name in ("quiz.js", "common.js", "explorer.css"):
        (root / "explorers" / name).write_text(
            (ROOT / "explorers" / name).read_text())
    namespace = {"gx": torch.tensor(-10.0), "yt": torch.tensor(3.0),
                 "bwd_flops": 3105, "fwd_flops": 2064, "per_layer": 32768.0}
    namespace["yt"].grad = torch.tensor(3.0)
    body = rendered("\n\n".join(
        quiz.form(quiz.block(chapter, s, namespace), "html")
        for chapter, s in PAGE_SECTIONS))
    (root / "chapters").mkdir()
    (root / "chapters" / "quiz.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>Questions</title>"
        '<link rel="icon" href="data:,">'
        '<link rel="stylesheet" href="../explorers/explorer.css">'
        "</head><body><main><h1>Questions</h1><h2>A section</h2>"
        f"{body}</main></body></html>")
    return root


def open_quiz(browser, origin):
    page = WatchedPage(browser, origin)
    page.page.goto(f"{origin}/chapters/quiz.html")
    for _, section in PAGE_SECTIONS:
        page.page.wait_for_selector(
            f'[data-quiz="{section}"][data-ready="true"]')
    return page


def feedback(page, n):
    return page.page.locator(".quiz-feedback").nth(n).inner_text()


def test_widget_answers_right_and_wrong(quiz_page):
    with serve(quiz_page) as origin, chromium() as browser:
        page = open_quiz(browser, origin)
        answer = page.page.locator("input[type=text]").nth(0)
        check = page.page.locator(".quiz-check")
        answer.fill("10")  # the sign is wrong
        check.nth(0).click()
        assert feedback(page, 0) == "Not quite. Try again."
        answer.fill("−10")  # a true minus sign is accepted too
        check.nth(0).click()
        assert feedback(page, 0).startswith("Right: −10.0. A multiplication")
        page.page.locator("label", has_text="visits every node").click()
        check.nth(1).click()
        assert "visit-once recursion also visits" in feedback(page, 1)
        # the rule stays above the questions that ask for a number
        rules = page.page.locator(".quiz-rule")
        assert rules.count() == 3  # sec-local, sec-paths, sec-cost
        # with what only the widget does, and its TRIES (tests/js)
        assert rules.nth(0).inner_text() == (
            f"{quiz.RULE} One unit off in the last digit is close, but in a "
            "count it is wrong. Only a wrong number counts as a try, not a "
            "close one or one with too few digits that agree with the "
            "answer as far as they go (a 0 means zero, and a fraction "
            "or a power is exact); after 2 wrong tries, the "
            "hint appears, and the answer can be shown.")
        assert rules.nth(0).is_visible()
        # a count, whose unit the reader may type, and which is exact
        answer = page.page.locator("input[type=text]").nth(3)
        answer.fill("32.768")
        live = page.page.locator("form:has(input#quiz-sec-cost-saved-per-"
                                 "layer-answer) .quiz-feedback")
        answer.press("Enter")
        assert live.inner_text().startswith("Did you mean 32768?")
        answer.fill("32,767 bytes")  # one off a count is wrong
        answer.press("Enter")
        assert live.inner_text() == "Not quite. Try again."
        answer.fill("3.3e4")  # 33000, however written: a try, the second
        answer.press("Enter")
        assert live.inner_text().startswith("Not quite. A hint:")
        answer.fill("32 768 bytes")
        answer.press("Enter")
        assert live.inner_text().startswith("Right: 32,768. One float32")
        # backward-ratio, 3105/2064 = 1.5044 here: too few digits are
        # judged against that value, so 2 agrees with it and 1 does not
        answer = page.page.locator("input[type=text]").nth(2)
        live = page.page.locator("form:has(input#quiz-sec-cost-backward-"
                                 "ratio-answer) .quiz-feedback")
        for typed, said in [
                ("1", "Not quite. Try again."),
                ("2", "Give 2 decimals: 2 agrees with the answer as far as "
                      "it goes."),
                ("1.5 10^0", "Right: 1.50.")]:  # a space before 10^ is ×
            answer.fill(typed)
            answer.press("Enter")
            assert live.inner_text().startswith(said), typed
        assert page.problems()["errors"] == []
        assert axe_violations(page.page) == []


def test_widget_shows_the_rendered_maths_and_code(quiz_page):
    with serve(quiz_page) as origin, chromium() as browser:
        page = open_quiz(browser, origin)
        legends = page.page.locator("legend")
        # paths-add: its maths as MathML in the prompt, read as maths
        assert legends.nth(2).locator("math").count() == 4
        assert legends.nth(3).locator("code").count() == 3  # sec-freed
        assert not page.page.get_by_text("through the product").is_visible()
        answer = page.page.locator("input[type=text]").nth(1)
        answer.fill(" +3,0 ")  # spaces, a plus and a decimal comma
        page.page.locator(".quiz-check").nth(2).click()
        live = page.page.locator(".quiz-feedback").nth(2)
        assert live.inner_text().startswith("Right: 3.0.")
        assert live.locator("math").count() == 4  # the reason, rendered
        assert page.problems()["errors"] == []


def test_widget_works_by_keyboard_and_tells_the_screen_reader(quiz_page):
    topo = next(q for _, s, q in quiz.numbered("by-hand") if s == "sec-topo")
    assert topo["choices"][0].get("correct")  # the first radio is right
    with serve(quiz_page) as origin, chromium() as browser:
        page = open_quiz(browser, origin)
        keys = page.page.keyboard
        keys.press("Tab")  # the number field
        keys.type("-10")
        keys.press("Enter")  # submits its form
        keys.press("Tab")  # the Check button
        keys.press("Tab")  # into the radio group: its first choice
        keys.press("Space")  # select it
        keys.press("Tab")  # that form's Check button
        keys.press("Enter")
        live = page.page.locator(".quiz-feedback")
        assert live.nth(0).get_attribute("role") == "status"
        assert feedback(page, 0).startswith("Right:")
        assert feedback(page, 1).startswith("Right.")
        described = page.page.locator("fieldset").nth(1).get_attribute(
            "aria-describedby")
        assert described == live.nth(1).get_attribute("id")
        legend = page.page.locator("legend").nth(1).inner_text()
        assert legend.startswith("Question") and "topological" in legend


def test_two_wrong_tries_bring_the_hint_then_the_answer_by_keyboard(
        quiz_page):
    with serve(quiz_page) as origin, chromium() as browser:
        page = open_quiz(browser, origin)
        keys = page.page.keyboard
        show = page.page.locator(".quiz-show").nth(0)
        focused = "document.activeElement.textContent"
        keys.press("Tab")  # the number field
        keys.press("Enter")  # nothing typed: a prompt, not a wrong try
        assert feedback(page, 0).startswith("Type your answer first")
        keys.type("-10.1")  # one unit off: close, and no wrong try
        keys.press("Enter")
        assert feedback(page, 0) == "Close: check your rounding."
        for _ in "-10.1":
            keys.press("Backspace")
        keys.type("10")  # wrong
        keys.press("Enter")
        assert feedback(page, 0) == "Not quite. Try again."
        assert not show.is_visible()
        keys.press("Backspace")
        keys.press("Backspace")
        keys.type("15")  # wrong again: the hint, and the answer offered
        keys.press("Enter")
        live = page.page.locator(".quiz-feedback").nth(0)
        assert live.get_attribute("role") == "status"
        assert live.inner_text().startswith(
            "Not quite. A hint: Which number does a multiplication multiply")
        assert show.is_visible()
        keys.press("Tab")  # the Check button
        keys.press("Tab")  # Show the answer
        assert page.page.evaluate(focused) == "Show the answer"
        keys.press("Enter")
        assert live.inner_text().startswith(
            "The answer: −10.0. A multiplication hands each input the "
            "upstream gradient times the other input")
        assert live.locator("math").count() == 1  # 5 × (−2), rendered
        assert page.problems()["errors"] == []
        assert axe_violations(page.page) == []


from built import BOOK  # noqa: E402


def built(path):
    """A file of the built book, if it is there and newer than the
    questions (test_render.py builds the book; these tests read it)."""
    if not path.exists():
        pytest.skip(f"{path.name} is not built (make book)")
    sources = [quiz.SOURCE, ROOT / "code" / "booktools" / "quiz.py"]
    if path.stat().st_mtime < max(p.stat().st_mtime for p in sources):
        pytest.skip(f"{path.name} is older than the questions "
                    "(make book)")
    return path


def test_built_pages_show_the_questions_maths_as_mathml(render_log):
    for chapter in QUESTIONS:
        page = built(BOOK / "chapters" / f"{chapter}.html").read_text()
        for _, _, q in quiz.numbered(chapter):
            found = re.search(rf'<div [^>]*data-id="{q["id"]}"[^>]*>\s*'
                              r"<p>(.*?)</p>", page, re.DOTALL)
            assert found, (chapter, q["id"])
            prompt = found.group(1)
            assert ("<math" in prompt) == ("$" in q["prompt"]), q["id"]
            assert ("<code" in prompt) == ("`" in q["prompt"]), q["id"]
            assert "$" not in prompt and "`" not in prompt, q["id"]


def test_question_numbers_run_through_the_chapter():
    numbers = [n for n, _, _ in quiz.numbered("backprop")]
    assert numbers == list(range(1, len(numbers) + 1))
    right = [[c.get("correct", False) for c in q["choices"]].index(True)
             for _, _, q in quiz.numbered("backprop") if q["kind"] == "choice"]
    assert len(set(right)) == 3  # the right letter is not always (a)


def pdf_fragments(pdf):
    """Each text fragment of a PDF with its font family, in reading order
    (poppler's pdftohtml -xml), subset prefixes removed."""
    tool = shutil.which("pdftohtml")
    if tool is None:
        pytest.skip("pdftohtml (Debian poppler-utils) is not installed")
    xml = subprocess.run([tool, "-xml", "-i", "-stdout", str(pdf)],
                         capture_output=True, text=True, check=True).stdout
    families = {i: f.split("+", 1)[-1] for i, f in re.findall(
        r'<fontspec id="(\d+)"[^>]* family="([^"]+)"', xml)}
    return [(families[font], html.unescape(re.sub(r"<[^>]+>", "", text)))
            for font, text in re.findall(
                r'<text [^>]*font="(\d+)"[^>]*>(.*?)</text>', xml)]


def test_built_pdf_prints_the_questions_code_and_maths_in_their_fonts(
        render_log):
    fragments = pdf_fragments(built(BOOK / "backprop.pdf"))
    fonts = {family for family, _ in fragments}
    # "δ⁽ˡ⁾" in the body font drew on DejaVu Sans, a fallback font
    assert not [f for f in fonts if f.startswith("DejaVuSans")
                and "Mono" not in f], fonts
    texts = [text for _, text in fragments]
    start = texts.index("1. Why does every ")  # autograd's first question
    asked = fragments[start:start + 8]
    for code in ("push_grad", ".grad", "+="):
        assert any(text.strip() == code and "Mono" in family
                   for family, text in asked), (code, asked)
    start = texts.index("3. How many entries does the blame ")
    asked = fragments[start:start + 6]
    family, delta = asked[1]
    assert "Math" in family and delta == "𝜹"  # bold italic, as in the text
    layer = [text for _, text in asked].index(" of layer ")
    family, letter = asked[layer + 1]  # a math italic l, not "1"
    assert "Math" in family and letter == "𝑙"


def test_the_precision_asked_is_said_from_the_digits_once():
    assert quiz.prompt({"kind": "number", "prompt": "Q?", "digits": 4}) == (
        "Q? Give four decimals.")
    assert quiz.prompt({"kind": "number", "prompt": "Q?", "digits": 1}) == (
        "Q? Give one decimal.")
    assert quiz.prompt({"kind": "number", "prompt": "Q?", "digits": 3,
                        "significant": True}) == (
        "Q? Give three significant digits.")
    assert quiz.prompt({"kind": "number", "prompt": "Q?",
                        "count": "bytes"}) == "Q? Give the exact number."
    for chapter in quiz.load().values():  # never typed into a prompt too
        for questions in chapter.values():
            for q in questions:
                assert not re.search(r"decimal|significant|digits",
                                     q["prompt"]), q["id"]
