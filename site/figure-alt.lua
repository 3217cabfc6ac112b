-- A figure div's fig-alt, which may hold computed numbers, goes on its
-- image: Quarto leaves it on the div, where no screen reader reads it.
function FloatRefTarget(float)
  local alt = float.attributes["fig-alt"]
  if alt == nil then return nil end
  float.content = float.content:walk({Image = function(image)
    image.attributes["alt"] = alt
    return image
  end})
  return float
end
