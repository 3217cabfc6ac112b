-- In print, drop what only a screen can use.
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
-- exercise exr-x) are for running: the site shows them for the reader to
-- copy, and the student notebook runs them. Print leaves both cells out,
-- code and output (a "not yet"); a check-y with no starter-y is kept.

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
  return blocks:filter(function(block)
    local kind, name = (label(block) or ""):match("^(%a+)%-(.+)$")
    return not ((kind == "starter" or kind == "check") and starters[name])
  end)
end
