-- In print, drop the code of cells that the site folds away.
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
