-- Expand each `::: {.solution}` div, written directly after its exercise
-- (`::: {#exr-...}`), for the format and profile being rendered:
--
--   profile `course` (graded exercises)  removed, in every format
--   HTML, any other profile              a collapsed callout-tip titled
--                                        "Solution to Exercise N"
--   print (Typst/PDF), profile           the same callout, open
--     `instructor`
--   print, any other profile             removed: the student PDF has
--                                        no solutions
--
-- The active profiles are `quarto.project.profile`, a list that Quarto
-- fills from --profile / QUARTO_PROFILE / `profile: default:` (Quarto's
-- own when-profile divs read the same list). The format comes from
-- `quarto.doc.is_format`.
--
-- On the site, an exercise whose code cannot run in the page also gets a
-- line that says where it runs (runs_in_notebook, below).
--
-- Register it at the `pre-ast` entry point, before Quarto parses the
-- document: the callout it writes is then exactly the markup the
-- chapters used to hold by hand, which Quarto turns into a callout and
-- whose title's @exr-... reference its crossref filters number. A
-- solution removed here is gone before anything in it is numbered.

local function has_profile(name)
  return pandoc.List(quarto.project.profile or {}):includes(name)
end

-- true: keep as a collapsed callout; "open": keep as an open callout;
-- false: remove
local function mode()
  if has_profile("course") then
    return false
  elseif quarto.doc.is_format("html") then
    return true
  elseif has_profile("instructor") then
    return "open"
  end
  return false
end

local function title(exercise)
  if exercise == nil then
    return { pandoc.Str("Solution") }
  end
  local ref = pandoc.Cite({ pandoc.Str("@" .. exercise) },
    { pandoc.Citation(exercise, "NormalCitation") })
  return { pandoc.Str("Solution"), pandoc.Space(), pandoc.Str("to"),
    pandoc.Space(), ref }
end

local function callout(solution, exercise, collapse)
  local attributes = {}
  if collapse then
    attributes.collapse = "true"
  end
  local content = pandoc.Blocks({ pandoc.Header(2, title(exercise)) })
  local body = pandoc.Blocks(solution.content)
  if not collapse and body[1] and body[1].t == "Para" then
    -- print: its opening paragraph stays with the block after it
    -- (site/print-layout.lua), never two lines alone at a page's foot
    body[1] = pandoc.Div({ body[1] }, pandoc.Attr("", { "solution-lead" }))
  end
  content:extend(body)
  return pandoc.Div(content, pandoc.Attr("", { "callout-tip" }, attributes))
end

-- On the site, an exercise whose cells need PyTorch has no Run button
-- (live cells run plain Python only): a line before its first cell says
-- where it runs, and links the notebooks, which the course edition does
-- not publish.
local function runs_in_notebook()
  local words = "Its cells need PyTorch, which the page cannot run: run "
    .. "them in "
  if has_profile("course") then
    return pandoc.Para(pandoc.Emph(pandoc.Inlines(words .. "Jupyter.")))
  end
  local line = pandoc.Inlines(words .. "this chapter’s notebook, numbered "
    .. "as the chapter is, from ")
  line:insert(pandoc.Link("the notebooks’ zip",
    "/notebooks/backprop-notebooks.zip"))
  line:insert(pandoc.Str("."))
  return pandoc.Para(pandoc.Emph(line))
end

function Div(div)
  if not div.identifier:match("^exr%-") or not quarto.doc.is_format("html")
  then
    return nil
  end
  local cells, live = 0, false
  div:walk({ Div = function(inner)
    if inner.classes:includes("cell") then
      cells = cells + 1
      live = live or inner.classes:includes("live")
    end
  end })
  if cells > 0 and not live then  -- said before the first cell
    local at = #div.content + 1
    for i, block in ipairs(div.content) do
      if block.t == "Div" and block.classes:includes("cell") then
        at = i
        break
      end
    end
    div.content:insert(at, runs_in_notebook())
    return div
  end
end

function Blocks(blocks)
  local result = pandoc.Blocks({})
  local changed = false
  for i, block in ipairs(blocks) do
    if block.t == "Div" and block.classes:includes("solution") then
      changed = true
      local before = blocks[i - 1]
      local exercise = nil
      if before and before.t == "Div"
          and before.identifier:match("^exr%-") then
        exercise = before.identifier
      else
        quarto.log.warning("solution.lua: a .solution div does not "
          .. "directly follow an exercise (::: {#exr-...})")
      end
      local keep = mode()
      if keep == "open" and exercise then
        -- print: inside its exercise, at the end, so the solution flows on
        -- from the exercise's last line, on the same page unless that line
        -- ends a page (print.typ)
        result[#result].content:insert(callout(block, exercise, false))
      elseif keep then
        result:insert(callout(block, exercise, keep == true))
      end
    else
      result:insert(block)
    end
  end
  if changed then
    return result
  end
end
