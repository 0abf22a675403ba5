// MathJax settings for the formulas pymdownx.arithmatex marks (\[ ... \] inside .arithmatex), loaded
// before MathJax itself (served from the site's own assets: no CDN). Material's instant navigation is
// off, so a page typesets once on load.
window.MathJax = {
  tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: true },
  options: { ignoreHtmlClass: ".*|", processHtmlClass: "arithmatex" },
  svg: { fontCache: "global" }
};
