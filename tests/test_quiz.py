"""The check-your-understanding questions: well formed, placed at the
end of every main section, numeric answers computed by the chapters and
checked here against values derived by hand or by autograd, and the
widget tested in Chromium."""

import math
import re

import pytest
import torch
from browser import WatchedPage, axe_violations, chromium, serve

from booktools import ROOT, quiz

QUESTIONS = quiz.load()
NOT_MAIN = ("summary", "reading", "exercises")  # how those ids end


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
                    assert isinstance(q["digits"], int)
    assert kinds == {"choice", "number"}


def test_numeric_answers_match_independent_references(run_chapter):
    w = torch.tensor(0.7, requires_grad=True)
    b = torch.tensor(-0.5, requires_grad=True)
    (0.5 * (torch.sigmoid(w * 2.0 + b) - 0.1) ** 2).backward()
    forward = 2 * 128 * (64 * 64 * 2 + 64)
    expected = {
        ("backprop", "numeric-bias"): b.grad.item(),
        ("autograd", "backward-ratio"): (2 * forward - 2 * 128 * 64 * 64)
        / forward,
        # one float32 ReLU output of 128 x 64 per layer, stored once
        ("autograd", "saved-per-layer"): 128 * 64 * 4,
        ("deep", "ten-gates"): 0.25 ** 10,
        ("deep", "linear-default"): 1 / 6,
        ("by-hand", "mul-gradient"): 5 * -2.0,
        ("by-hand", "paths-add"): 2.0 + 1,
        ("by-hand", "walk-weight"): 2 * (0.5 * 2 - 3 - 1) * 2,
    }
    seen = set()
    for chapter, sections in QUESTIONS.items():
        for questions in sections.values():
            for q in questions:
                if q["kind"] != "number":
                    continue
                seen.add((chapter, q["id"]))
                value = run_chapter(chapter).value(f"float({q['answer']})")
                reference = expected[(chapter, q["id"])]
                # within the tolerance a reader's reply is given
                assert abs(value - reference) <= max(
                    quiz.tolerance(q, value), 1e-9), q["id"]
    assert seen == set(expected)


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
    assert page.startswith("```{=html}") and 'data-quiz="sec-paths"' in page
    assert 'when-profile="instructor"' in box and "<details>" not in box
    assert "<details><summary>Answer</summary>" in notebook
    assert "3.0. y reaches z" in notebook  # the answer, computed, then why
    assert "::::" not in notebook and "when-format" not in notebook


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
        '::: {.content-hidden when-profile="instructor"}')
    assert "**Answers to the questions.**" in key


def test_quiz_reads_no_environment_and_keeps_no_state():
    source = (ROOT / "code" / "booktools" / "quiz.py").read_text()
    assert not re.search(r"\bos\b|environ\b|getenv", source)
    assert not hasattr(quiz, "NOTEBOOK")
    namespace = {"gx": torch.tensor(-10.0)}
    first = quiz.block("by-hand", "sec-local", namespace)
    quiz.block("by-hand", "sec-topo", namespace)
    assert quiz.block("by-hand", "sec-local", namespace) == first


@pytest.fixture(scope="module")
def quiz_page(tmp_path_factory):
    root = tmp_path_factory.mktemp("quiz-page")
    (root / "explorers").mkdir()
    for name in ("quiz.js", "common.js", "explorer.css"):
        (root / "explorers" / name).write_text(
            (ROOT / "explorers" / name).read_text())
    namespace = {"gx": torch.tensor(-10.0)}
    blocks = [quiz.form(quiz.block("by-hand", s, namespace), "html")
              for s in ("sec-local", "sec-topo")]
    body = "\n".join(b.split("\n", 1)[1].rsplit("\n", 1)[0] for b in blocks)
    body = body.replace("../explorers/", "explorers/")
    (root / "chapters").mkdir()
    (root / "chapters" / "quiz.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        "<title>Questions</title>"
        '<link rel="icon" href="data:,">'
        '<link rel="stylesheet" href="../explorers/explorer.css">'
        "</head><body><main><h1>Questions</h1><h2>A section</h2>"
        f"{body}</main></body></html>".replace(
            'src="explorers/', 'src="../explorers/'))
    return root


def open_quiz(browser, origin):
    page = WatchedPage(browser, origin)
    page.page.goto(f"{origin}/chapters/quiz.html")
    page.page.wait_for_selector('[data-quiz="sec-topo"][data-ready="true"]')
    return page


def feedback(page, n):
    return page.page.locator(".quiz-feedback").nth(n).inner_text()


def test_widget_answers_right_and_wrong(quiz_page):
    with serve(quiz_page) as origin, chromium() as browser:
        page = open_quiz(browser, origin)
        answer = page.page.locator("input[type=text]")
        answer.fill("10")  # the sign is wrong
        page.page.locator("button").nth(0).click()
        assert feedback(page, 0).startswith("Not quite.")
        answer.fill("−10")  # a true minus sign is accepted too
        page.page.locator("button").nth(0).click()
        assert feedback(page, 0).startswith("Right: −10.0.")
        page.page.locator("label", has_text="visits every node").click()
        page.page.locator("button").nth(1).click()
        assert "visit-once recursion also visits" in feedback(page, 1)
        assert page.problems()["errors"] == []
        assert axe_violations(page.page) == []


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


def test_question_numbers_run_through_the_chapter():
    numbers = [n for n, _, _ in quiz.numbered("backprop")]
    assert numbers == list(range(1, len(numbers) + 1))
    right = [[c.get("correct", False) for c in q["choices"]].index(True)
             for _, _, q in quiz.numbered("backprop") if q["kind"] == "choice"]
    assert len(set(right)) == 3  # the right letter is not always (a)
    assert math.isclose(quiz.tolerance({"digits": 2}, 1.5), 0.005,
                        rel_tol=1e-6)
