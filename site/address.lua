-- Where the book lives: `book: site-url` and `book: repo-url` in
-- _quarto.yml, which the Pages workflow sets to the address GitHub Pages
-- gives it (.github/workflows/book.yml). A span [how to find it]{.book-site}
-- becomes a link to the site, the page `path` on it if given
-- ({.book-site path="notebooks/backprop-notebooks.zip"}), and
-- [...]{.book-repo} a link to the repository. Where the address is not
-- set (a local build) the span keeps its own words, which say how to
-- find the site instead: no address is ever made up. The BibTeX entry
-- gains a url field when the site's address is set.
local addresses = {}

local function link(span)
  for class, url in pairs(addresses) do
    if span.classes:includes(class) then
      if url == "" then
        return span.content
      end
      local target = class == "book-repo" and url
        or url:gsub("/*$", "/") .. (span.attributes.path or "")
      return pandoc.Link(pandoc.Str(target), target)
    end
  end
end

return {
  { Meta = function(meta)
      local book = meta.book or {}
      addresses["book-site"] = pandoc.utils.stringify(book["site-url"] or "")
      addresses["book-repo"] = pandoc.utils.stringify(book["repo-url"] or "")
    end },
  { Span = link,
    CodeBlock = function(block)
      local site = addresses["book-site"]
      if block.classes:includes("bibtex") and site ~= "" then
        block.text = block.text:gsub("\n}%s*$", ",\n  url = {" .. site .. "}\n}")
        return block
      end
    end },
}
