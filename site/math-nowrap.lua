-- Inline maths keeps the punctuation after it on its line: a browser may
-- break between a formula and its comma, and start a line with ",".
function Inlines(inlines)
  for i = #inlines - 1, 1, -1 do
    local formula, after = inlines[i], inlines[i + 1]
    if formula.t == "Math" and formula.mathtype == "InlineMath"
        and after.t == "Str" then
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
  return inlines
end
