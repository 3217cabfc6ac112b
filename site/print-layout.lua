-- The printed book's page, for the Typst PDF (site/typst-show.typ and
-- site/print.typ style what this filter marks):
--
--   imprint      the preface's `::: {#imprint}` block leaves the body and
--                becomes the imprint on the back of the cover (metadata
--                `imprint`); its spans .book-version, .book-date and
--                .book-commit are filled in at render time from the
--                repository (pyproject.toml, git)
--   page numbers the front matter counts in roman numerals; the first
--                numbered chapter starts the arabic count at 1
--   outputs      a cell's printed output becomes a raw block of language
--                `output`, which print.typ sets apart from the code; a
--                short piece of code sticks to its output
--   intro lines  a paragraph that ends with a colon and introduces code
--                (or a displayed equation) sticks to it, so that no page
--                ends between them
--   maths        operator names are set without a space before their
--                parenthesis ("Var(z)", not "Var (z)"), and |x| as one
--                delimited group ("log|δ|", not "log| δ |")
--
-- Every mark is plain Typst, so a book rendered with this filter alone
-- (tests/test_structure.py) still compiles.

if not quarto.doc.is_format("typst") then
  return {}
end

-- the build's facts -------------------------------------------------------

local function read(path)
  local file = io.open(path, "r")
  if file == nil then
    return nil
  end
  local text = file:read("a")
  file:close()
  return text
end

local windows = package.config:sub(1, 1) == "\\"

-- A command's output, "" if it fails (its errors are not shown).
local function command(args)
  local quoted = {}
  for _, arg in ipairs(args) do
    quoted[#quoted + 1] = windows and ('"' .. arg .. '"')
        or ("'" .. arg:gsub("'", "'\\''") .. "'")
  end
  local pipe = io.popen(table.concat(quoted, " ") .. " 2>"
    .. (windows and "NUL" or "/dev/null"))
  if pipe == nil then
    return ""
  end
  local out = pipe:read("a") or ""
  pipe:close()
  return (out:gsub("%s+$", ""))
end

-- The book's repository: BOOKTOOLS_ROOT, which booktools.render sets
-- (it renders a copy of the sources), else the project (`quarto render`
-- in the repository).
local function repository()
  local root = os.getenv("BOOKTOOLS_ROOT")
  if root ~= nil and root ~= "" then
    return root
  end
  return quarto.project.directory or "."
end

local function version(root)
  local pyproject = read(pandoc.path.join({ root, "pyproject.toml" }))
  return pyproject and pyproject:match('\nversion%s*=%s*"([^"]+)"') or nil
end

-- The commit, as the imprint names it: "commit 8ac313b", with "with
-- uncommitted changes" if the work tree differs from it, or
-- "uncommitted sources" outside git.
local function commit(root)
  local head = command({ "git", "-C", root, "rev-parse", "--short", "HEAD" })
  if not head:match("^%x+$") then
    return "uncommitted sources"
  end
  -- no optional locks: git status reads the work tree and writes nothing
  if command({ "git", "--no-optional-locks", "-C", root, "status",
      "--porcelain", "--untracked-files=no" }) ~= "" then
    head = head .. " with uncommitted changes"
  end
  return "commit " .. head
end

local function build_date()
  local epoch = tonumber(os.getenv("SOURCE_DATE_EPOCH") or "")
  return os.date("!%Y-%m-%d", epoch)
end

-- the imprint --------------------------------------------------------------

-- Each span of class .book-version, .book-date or .book-commit becomes
-- its fact; a span of class .if-version shows only when the version is
-- known.
local function fill_imprint(blocks, facts)
  return pandoc.Blocks(blocks):walk({
    Span = function(span)
      if span.classes:includes("if-version") then
        return facts["book-version"] and span.content or {}
      end
      for class, value in pairs(facts) do
        if span.classes:includes(class) then
          return pandoc.Str(value)
        end
      end
    end,
  })
end

-- maths --------------------------------------------------------------------

-- \operatorname{Var}(z) becomes Typst's "Var" \( z \), a text with a
-- space after it, which Typst prints; \mathrm{Var} becomes letters set
-- upright with no space. |x| becomes \| x \|, whose bars Typst spaces as
-- relations; \left| x \right| becomes lr(|x|). \mathbf is set bold and
-- italic, as the site and the slides set it (texmath), not upright.
local function print_math(tex)
  tex = tex:gsub("\\operatorname%*?{(%a+)}", "\\mathrm{%1}")
  tex = tex:gsub("\\mathbf", "\\boldsymbol")
  local bare = tex:gsub("\\left|", ""):gsub("\\right|", "")
  local _, bars = bare:gsub("|", "")
  if bars >= 2 and bars % 2 == 0 and not tex:find("\\|", 1, true)
      and not tex:find("\\left|", 1, true) then
    tex = tex:gsub("|([^|]+)|", "\\left|%1\\right|")
  end
  return tex
end

-- cells --------------------------------------------------------------------

local function has_class(block, pattern)
  if block == nil or block.classes == nil then
    return false
  end
  for _, class in ipairs(block.classes) do
    if class:match(pattern) then
      return true
    end
  end
  return false
end

local function typst_string(text)
  return '"' .. text:gsub("\\", "\\\\"):gsub('"', '\\"')
      :gsub("\n", "\\n"):gsub("\r", "") .. '"'
end

-- A printed output as a raw block of language `output`.
local function output_block(code)
  return pandoc.RawBlock("typst", "#raw(block: true, lang: \"output\", "
    .. typst_string(code.text) .. ")")
end

local function mark_outputs(div)
  div.content = div.content:walk({ CodeBlock = output_block })
  return div
end

-- Short code (under 12 lines, which print.typ never breaks) sticks to
-- the output printed right after it.
local function keep_with_output(div)
  local result = pandoc.Blocks({})
  for i, block in ipairs(div.content) do
    if block.t == "CodeBlock" and select(2, block.text:gsub("\n", "")) < 11
        and has_class(div.content[i + 1], "^cell%-output") then
      result:insert(pandoc.RawBlock("typst",
        "#block(sticky: true, above: 0.9em, below: 0.9em)["))
      result:insert(block)
      result:insert(pandoc.RawBlock("typst", "]"))
    else
      result:insert(block)
    end
  end
  div.content = result
  return div
end

-- Does this block start with code a reader will see, or with a
-- displayed equation?
local function first_shown(blocks)
  for _, block in ipairs(blocks) do
    if block.t ~= "RawBlock" then
      return block
    end
  end
end

local function introduced(block)
  if block == nil then
    return false
  end
  if block.t == "CodeBlock" then
    return true
  end
  if block.t == "Div" and has_class(block, "^cell$") then
    local first = first_shown(block.content)
    return first ~= nil and first.t == "CodeBlock"
  end
  if block.t == "Para" then
    local first = block.content[1]
    return first ~= nil and ((first.t == "Math"
        and first.mathtype == "DisplayMath")
      or (first.t == "RawInline" and first.text:match("^#math%.equation")))
  end
  return false
end

local function ends_with_colon(para)
  local last = para.content[#para.content]
  return para.t == "Para" and last ~= nil and last.t == "Str"
      and last.text:match(":$") ~= nil
end

-- block, in a Typst block that sticks to the one after it; opening is
-- Typst set at the start of that block
local function stuck(block, opening)
  return pandoc.Blocks({ pandoc.RawBlock("typst", "#block(sticky: true)["
    .. opening), block, pandoc.RawBlock("typst", "]") })
end

-- What sticks to the block after it: an intro ending in a colon, and a
-- solution's opening paragraph (site/solution.lua). A solution may start
-- a page; what it follows, the exercise's check, stays on the page before
-- rather than leave that page underfull.
local function keep_with_next(blocks)
  local result = pandoc.Blocks({})
  for i, block in ipairs(blocks) do
    if block.t == "Para" and ends_with_colon(block)
        and introduced(blocks[i + 1]) then
      -- Typst indents a paragraph that follows a paragraph; the block
      -- would lose that indent, so it keeps it explicitly
      local indent = blocks[i - 1] ~= nil and blocks[i - 1].t == "Para"
      result:extend(stuck(block, indent
        and "#set par(first-line-indent: (amount: 1em, all: true))" or ""))
    elseif has_class(block, "^solution%-lead$") and blocks[i + 1] ~= nil then
      result:extend(stuck(block, ""))
    else
      result:insert(block)
    end
  end
  return result
end

-- the document --------------------------------------------------------------

local function is_numbered_chapter(block)
  return block.t == "Header" and block.level == 1
      and not block.classes:includes("unnumbered")
end

function Pandoc(doc)
  local imprint = nil
  local blocks = doc.blocks:walk({
    Div = function(div)
      if div.identifier == "imprint" then
        imprint = div.content
        return {}
      end
      if has_class(div, "^cell%-output") then
        return mark_outputs(div)
      elseif has_class(div, "^cell$") then
        return keep_with_output(div)
      end
    end,
    Math = function(math)
      math.text = print_math(math.text)
      return math
    end,
  })
  blocks = blocks:walk({ Blocks = keep_with_next })

  -- the arabic page count starts with the first numbered chapter
  local _, first = blocks:find_if(is_numbered_chapter)
  if first then
    blocks:insert(first, pandoc.RawBlock("typst",
      "#set page(numbering: \"1\")\n#counter(page).update(1)"))
  end
  doc.blocks = blocks

  if imprint ~= nil then
    local root = repository()
    doc.meta.imprint = pandoc.MetaBlocks(fill_imprint(imprint, {
      ["book-version"] = version(root),
      ["book-date"] = build_date(),
      ["book-commit"] = commit(root),
    }))
  end
  return doc
end
