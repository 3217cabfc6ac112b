-- In print, drop what only a screen can use, and move what would
-- interrupt the argument.
-- The site folds plumbing (drawing calls, explorer set-up) behind a
-- "Code: ..." summary; a printed page has no fold, so the reader would
-- meet that code in full. Teaching code is never folded and is kept.
function CodeBlock(block)
  if quarto.doc.is_format("typst")
      and block.classes:includes("cell-code")
      and block.attributes["code-fold"] ~= nil then
    return {}
  end
end

-- An exercise's cells starter-x and check-x (side by side in the div of
-- exercise exr-x) are run in the notebooks and, where they need no
-- torch, in the site's pages. Print shows them as ordinary code: the
-- starter's skeleton, which says what the answer looks like, and the
-- check, with the verdict that a right answer gets in place of the
-- starter's "not yet". A check-y with no starter-y is kept whole. RIGHT
-- is how backprop.verdicts words that verdict (tests/test_checks.py keeps
-- the two the same).
local RIGHT = "right: every check passes"

-- A cell's label: the cell div's id, or, where the cell shows a value,
-- the id that Quarto moves onto that output's div.
local function label(block)
  if block.t ~= "Div" or not block.classes:includes("cell") then
    return nil
  end
  if block.identifier ~= "" then
    return block.identifier
  end
  for _, child in ipairs(block.content) do
    if child.t == "Div" and child.identifier ~= "" then
      return child.identifier
    end
  end
end

-- A cell's code, without its output.
local function code_of(cell)
  return cell.content:filter(function(child)
    return child.t == "CodeBlock"
  end)
end

-- A check cell with its code, and the right answer's verdict below it,
-- as an output of the cell, which print-layout.lua keeps with the code
-- (and, in the instructor edition, with the solution that follows).
local function expected(cell)
  local code = code_of(cell)
  local words = pandoc.Inlines("When your answer is right, the check prints")
  code:insert(pandoc.Div({pandoc.Para(words .. {pandoc.Space(),
    pandoc.Code(RIGHT), pandoc.Str(".")})}, pandoc.Attr("", {"cell-output"})))
  return pandoc.Div(code, pandoc.Attr("", {"cell", "check-expected"}))
end

-- A module's listing longer than a page can take in the argument (a
-- cell `x-code` of class print-appendix, which includes
-- code/backprop/x.py) is printed in full in The book's code (code.qmd,
-- section #code-x). The chapter keeps its outline: its classes and
-- functions with their signatures (a function's body is "...", a
-- nested function is left out), and in full the functions that the cell
-- names in classes keep-NAME, the parts its argument needs; and the page
-- of the full listing. The outline's first line says what it is (and
-- print.typ numbers no outline's lines, which are not the module's).
local OUTLINE = "# an outline of "

local function outline(text, file, keep)
  local lines = {}
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    table.insert(lines, line)
  end
  local function depth(line)
    return #line:match("^(%s*)")
  end
  local kept, in_class, i = { OUTLINE .. file }, false, 1
  while i <= #lines do
    local line = lines[i]
    local level = depth(line)
    local name = line:match("^%s*def ([%w_]+)")
      or line:match("^%s*class ([%w_]+)")
    if line:match("%S") and level == 0 then
      in_class = line:match("^class ") ~= nil
    end
    local listed = line:match("%S") and (level == 0 and name
      or level == 4 and in_class and (name or line:match("^    @")
        or line:match("^    [%w_]+ = [%w_]+%s*$")))
    if not listed then
      i = i + 1
    elseif name and keep[name] then
      repeat  -- the whole definition
        table.insert(kept, lines[i])
        i = i + 1
      until i > #lines or (lines[i]:match("%S") and depth(lines[i]) <= level)
      while kept[#kept] == "" do
        table.remove(kept)
      end
    else
      local signature = line  -- to its colon, across lines
      while name and not signature:gsub("%s*#.*$", ""):match(":%s*$")
          and i < #lines do
        i = i + 1
        signature = signature .. " " .. lines[i]:gsub("^%s+", "")
      end
      local bare = signature:gsub("%s*#.*$", "")
      table.insert(kept, line:match("^%s*def ") and bare .. " ..." or bare)
      i = i + 1
    end
  end
  return table.concat(kept, "\n")
end

function Div(cell)
  if not (quarto.doc.is_format("typst")
      and cell.classes:includes("print-appendix")) then
    return nil
  end
  local name = (label(cell) or ""):match("^(.+)%-code$")
  local file = "code/backprop/" .. name .. ".py"
  local target = "<code-" .. name .. ">"
  local keep = {}
  for _, class in ipairs(cell.classes) do
    local kept = class:match("^keep%-(.+)$")
    if kept then
      keep[kept] = true
    end
  end
  return cell:walk({
    CodeBlock = function(block)
      if not block.classes:includes("cell-code") then
        return nil
      end
      return {
        pandoc.Para(pandoc.Inlines({ pandoc.Code(file), pandoc.Space() })
          .. pandoc.Inlines("is printed in full in") .. { pandoc.Space(),
          pandoc.RawInline("typst", "#link(" .. target .. ")[The book's "
            .. "code, p. #context numbering(\"1\", "
            .. "..counter(page).at(" .. target .. "))]") }
          .. pandoc.Inlines("; here is its outline:")),
        pandoc.CodeBlock(outline(block.text, file, keep), block.attr),
      }
    end,
  })
end

function Blocks(blocks)
  if not quarto.doc.is_format("typst") then
    return nil
  end
  local starters = {}
  for _, block in ipairs(blocks) do
    local name = (label(block) or ""):match("^starter%-(.+)$")
    if name then
      starters[name] = true
    end
  end
  if next(starters) == nil then
    return nil
  end
  local kept = pandoc.Blocks({})
  for _, block in ipairs(blocks) do
    local kind, name = (label(block) or ""):match("^(%a+)%-(.+)$")
    if kind == "check" and starters[name] then
      kept:insert(expected(block))
    elseif kind == "starter" and starters[name] then
      kept:insert(pandoc.Div(code_of(block), block.attr))
    else
      kept:insert(block)
    end
  end
  return kept
end
