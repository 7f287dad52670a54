"""The page ``kg serve`` shows at ``/``: a query form in one self-contained HTML file.

No script, style or font comes from elsewhere, and the page talks only to
``/query`` on its own server (the server's Content-Security-Policy enforces
both): kg works offline. The result is shown as text (``textContent``), so
nothing in the graph can run as markup. Without JavaScript the form still
works as a plain GET of ``/query``.
"""

__all__ = ["PAGE"]

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>kg SPARQL endpoint</title>
<style>
body { font: 15px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 75em; padding: 0 1em; }
textarea { box-sizing: border-box; width: 100%; font: 13px/1.4 monospace; }
pre { background: #f4f4f4; padding: .6em; overflow: auto; font-size: 13px; }
</style>
</head>
<body>
<h1>kg SPARQL endpoint</h1>
<p>Read-only SPARQL 1.1 queries over this graph. kg's prefixes (<code>kg:</code>,
<code>skos:</code>, <code>dcterms:</code>, <code>paper:</code>, <code>concept:</code>, ...)
are predeclared; labels carry a language tag (<code>"LoRA"@en</code>). Programs send their
queries to <code>/query</code> (SPARQL 1.1 Protocol).</p>
<form id="form" method="get" action="/query">
<textarea name="query" rows="12" spellcheck="false">SELECT ?paper ?title
WHERE { ?paper a kg:Paper ; dcterms:title ?title }
ORDER BY ?title
LIMIT 20</textarea>
<p><label>Rows as
<select id="accept">
<option value="text/tab-separated-values">TSV</option>
<option value="text/csv">CSV</option>
<option value="application/sparql-results+json">JSON</option>
<option value="application/sparql-results+xml">XML</option>
</select></label>
(CONSTRUCT and DESCRIBE give Turtle)
<button type="submit">Run</button></p>
</form>
<pre id="out"></pre>
<script>
document.getElementById("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const out = document.getElementById("out");
  out.textContent = "running…";
  try {
    const accept = document.getElementById("accept").value + ", text/turtle;q=0.5";
    const response = await fetch("/query", {
      method: "POST",
      headers: { "Accept": accept },
      body: new URLSearchParams(new FormData(event.target)),
    });
    const text = await response.text();
    out.textContent = response.ok ? text : `HTTP ${response.status}: ${text}`;
  } catch (error) {
    out.textContent = String(error);
  }
});
</script>
</body>
</html>
"""
