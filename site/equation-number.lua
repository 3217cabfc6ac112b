-- A numbered equation's number stays in sight on a narrow screen.
-- Quarto writes the number into the formula ("... \qquad(1.6)"), so a
-- formula wider than the page scrolled it away with the rest; here it
-- leaves the formula for a span of its own, which site.css keeps at the
-- right edge of the formula's scrolling box (.eq-number). Site only.
function Span(span)
  local math = span.content[1]
  if not span.identifier:match("^eq%-") or #span.content ~= 1
      or math.t ~= "Math" or math.mathtype ~= "DisplayMath" then
    return nil
  end
  local body, number = math.text:match("^(.-)%s*\\qquad%s*(%b())%s*$")
  if body == nil then
    return nil
  end
  math.text = body
  span.content = { math, pandoc.Span(pandoc.Str(number),
    pandoc.Attr("", { "eq-number" })) }
  span.classes:insert("numbered-equation")
  return span
end
