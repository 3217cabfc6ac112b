-- Inline maths keeps the punctuation after it on its line: a browser may
-- break between a formula and its comma, and start a line with ",". A
-- formula that ends with an operator ("$\eta =$", "$-$"), and an
-- operator in the text after a formula ("$\eta$ = 0.1"), keep the value
-- after them (a computed number, in the text) on their line: the space
-- after them does not break. Nor do the spaces around such an operator
-- after a formula or a word ("$L$ = 0.19", "4 × 1", "0.70 $-$ 1"), so
-- that no line starts or ends with "=" or "−".
local OPERATOR = { "=$", "-$", "+$", "\\times$", "\\cdot$", "\\approx$" }

local function ends_with_operator(formula)
  local tex = formula.text:gsub("%s+$", "") .. "$"
  for _, op in ipairs(OPERATOR) do
    if tex:sub(-#op) == op then
      return true
    end
  end
  return false
end

local TEXT_OPERATOR = { ["="] = true, ["−"] = true, ["×"] = true,
  ["+"] = true, ["≈"] = true }

local function is_space(inline)
  return inline.t == "Space" or inline.t == "SoftBreak"
end

-- an operator in the text, or a formula that is only one ("$-$")
local LONE = { ["="] = true, ["-"] = true, ["+"] = true, ["\\times"] = true,
  ["\\cdot"] = true, ["\\approx"] = true }

local function is_operator(inline)
  return (inline.t == "Str" and TEXT_OPERATOR[inline.text])
    or (inline.t == "Math" and LONE[inline.text:gsub("%s", "")] ~= nil)
end

function Inlines(inlines)
  for i = 2, #inlines - 1 do
    local before, next = inlines[i - 1], inlines[i + 1]
    if is_space(inlines[i]) and is_operator(next)
        and (before.t == "Math" or before.t == "Str") then
      inlines[i] = pandoc.Str("\u{00A0}")
      if inlines[i + 2] and is_space(inlines[i + 2]) then  -- "4 × 1" whole
        inlines[i + 2] = pandoc.Str("\u{00A0}")
      end
    end
  end
  for i = #inlines - 1, 1, -1 do
    local formula, after = inlines[i], inlines[i + 1]
    if formula.t == "Str" and TEXT_OPERATOR[formula.text] and i > 2
        and is_space(after) and inlines[i - 2].t == "Math" then
      inlines[i + 1] = pandoc.Str("\u{00A0}")
    elseif formula.t == "Math" and formula.mathtype == "InlineMath" then
      if is_space(after) and ends_with_operator(formula) then
        inlines[i + 1] = pandoc.Str("\u{00A0}")
      elseif after.t == "Str" then
        local mark, rest = after.text:match("^([%.,;:%)!%?]+)(.*)$")
        if mark then
          inlines[i] = pandoc.Span({ formula, pandoc.Str(mark) },
            { class = "nowrap" })
          if rest == "" then
            inlines:remove(i + 1)
          else
            inlines[i + 1] = pandoc.Str(rest)
          end
        end
      end
    end
  end
  return inlines
end
