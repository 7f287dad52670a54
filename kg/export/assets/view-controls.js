// kg's view script, part 3 of 3: search, legend, filters, years, export, and the test hooks.
  // --- search with suggestions -----------------------------------------------------------

  var search = $("kg-search");
  var suggest = $("kg-suggest");
  function norm(s) { return " " + s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim(); }
  var entries = [];
  Object.keys(PAPERS).forEach(function (id) {
    var q = PAPERS[id];
    var alts = q.title !== q.label ? [q.title] : [];
    // a paper is also found by its authors and its venue, after its own names
    var by = q.authors.map(function (a) { return "by " + a; });
    entries.push({ id: id, kind: "paper", label: q.label, alts: alts, rank: q.links,
      more: q.venue ? by.concat(["in " + q.venue]) : by });
  });
  Object.keys(CONCEPTS).forEach(function (id) {
    var c = CONCEPTS[id];
    if (!c.papers.length) return;  // a concept no paper mentions is never suggested
    entries.push({ id: id, kind: c.kind, label: c.label, alts: c.alt, rank: c.papers.length, more: [] });
  });
  entries.forEach(function (e) {
    e.low = e.label.toLowerCase();
    e.words = norm(e.label);
    e.altLow = e.alts.map(function (a) { return a.toLowerCase(); });
    e.altWords = e.alts.map(norm);
    e.moreWords = e.more.map(function (m) { return norm(m.replace(/^(by|in) /, "")); });
  });
  // Tiers: the whole name, its start, an altLabel's start, a word's start in a name, an
  // altLabel, an author or venue; only then a match inside a word ("lora" in "exploration").
  function match(e, q, qw) {
    var i;
    if (e.low === q) return [0, -1];
    if (e.low.indexOf(q) === 0) return [1, -1];
    for (i = 0; i < e.altLow.length; i++) if (e.altLow[i].indexOf(q) === 0) return [2, i];
    if (!qw) return null;
    if (e.words.indexOf(qw) >= 0) return [3, -1];
    for (i = 0; i < e.altWords.length; i++) if (e.altWords[i].indexOf(qw) >= 0) return [4, i];
    for (i = 0; i < e.moreWords.length; i++) if (e.moreWords[i].indexOf(qw) >= 0) return [5, -2 - i];
    var inner = qw.slice(1);
    if (e.words.indexOf(inner) >= 0) return [6, -1];
    for (i = 0; i < e.altWords.length; i++) if (e.altWords[i].indexOf(inner) >= 0) return [7, i];
    for (i = 0; i < e.moreWords.length; i++) if (e.moreWords[i].indexOf(inner) >= 0) return [8, -2 - i];
    return null;
  }
  var current = [];
  var active = -1;
  function findAll(text) {
    var q = text.trim().toLowerCase();
    if (!q) return [];
    var qw = norm(q);
    if (qw === " ") qw = "";
    var found = [];
    entries.forEach(function (e) {
      var m = match(e, q, qw);
      if (m) found.push({ e: e, tier: m[0], alt: m[1] });
    });
    found.sort(function (a, b) {
      // better match, then drawn here, then the closer (shorter) name, then the more linked
      return a.tier - b.tier || (byId[b.e.id] ? 1 : 0) - (byId[a.e.id] ? 1 : 0) ||
        a.e.label.length - b.e.label.length || b.e.rank - a.e.rank ||
        (a.e.label < b.e.label ? -1 : a.e.label > b.e.label ? 1 : 0);
    });
    return found;
  }
  function renderSuggestions() {
    var found = findAll(search.value);
    current = found.slice(0, 10);
    active = current.length ? 0 : -1;
    suggest.replaceChildren();
    current.forEach(function (f, i) {
      var li = el("li", null, "kg-option");
      li.id = "kg-option-" + i;
      li.setAttribute("role", "option");
      li.dataset.node = f.e.id;
      var main = el("span", null, "kg-option-main");
      main.append(swatch(f.e.kind), el("span", f.e.label, "kg-option-label"));
      li.append(main);
      var sub = f.alt >= 0 ? "also: " + f.e.alts[f.alt] : f.alt <= -2 ? f.e.more[-2 - f.alt] : "";
      var about = f.e.kind === "paper" ? (PAPERS[f.e.id].meta || "paper")
        : f.e.kind + " · " + plural(f.e.rank, "paper");
      if (!byId[f.e.id]) about += VIEW === "paper-map" && CONCEPTS[f.e.id] ? " · highlights its papers" : " · not drawn";
      li.append(el("span", [sub, about].filter(Boolean).join(" · "), "kg-option-sub"));
      li.addEventListener("mousedown", function (ev) { ev.preventDefault(); pick(i); });
      li.addEventListener("mouseenter", function () { setActive(i); });
      suggest.append(li);
    });
    if (search.value.trim() && !current.length) suggest.append(el("li", "No paper or concept matches.", "kg-empty"));
    if (found.length > current.length) suggest.append(el("li", plural(found.length, "match", "matches") + ": keep typing to narrow", "kg-more"));
    suggest.hidden = !search.value.trim();
    search.setAttribute("aria-expanded", suggest.hidden ? "false" : "true");
    setActive(active);
  }
  function setActive(i) {
    active = i;
    Array.prototype.forEach.call(suggest.querySelectorAll(".kg-option"), function (li, k) {
      li.setAttribute("aria-selected", k === i ? "true" : "false");
    });
    if (i >= 0) search.setAttribute("aria-activedescendant", "kg-option-" + i);
    else search.removeAttribute("aria-activedescendant");
  }
  function pick(i) {
    var f = current[i];
    if (!f) return;
    search.value = f.e.label;
    choose(f.e.id);
  }
  function hideSuggestions() {
    suggest.hidden = true;
    search.setAttribute("aria-expanded", "false");
  }
  search.addEventListener("input", renderSuggestions);
  search.addEventListener("focus", function () { if (search.value.trim()) renderSuggestions(); });
  search.addEventListener("blur", function () { setTimeout(hideSuggestions, 150); });
  search.addEventListener("keydown", function (ev) {
    if (ev.key === "ArrowDown" || ev.key === "ArrowUp") {
      ev.preventDefault();
      if (suggest.hidden) renderSuggestions();
      if (!current.length) return;
      var step = ev.key === "ArrowDown" ? 1 : -1;
      setActive((active + step + current.length) % current.length);
    } else if (ev.key === "Enter") {
      ev.preventDefault();
      if (suggest.hidden) renderSuggestions();
      pick(active >= 0 ? active : 0);
    } else if (ev.key === "Escape") {
      hideSuggestions();
    }
  });

  // --- legend, filters, weight, counts ------------------------------------------------------

  var legend = $("kg-legend");
  var fieldSelect = $("kg-field");
  var totals = {};
  nodeList.forEach(function (n) { totals[n.kind] = (totals[n.kind] || 0) + 1; });

  if (S.areas) {
    S.areas.forEach(function (row) {
      var li = el("li", null, "kg-area");
      var b = el("button", null, "kg-area-button");
      b.type = "button";
      b.title = row[0] ? "Show only the papers of this colour (this main area)"
        : "Show only the papers of smaller areas, or without a field";
      b.dataset.area = row[0];
      b.setAttribute("aria-pressed", "false");
      b.append(swatch("paper", row[1]), el("span", (row[0] ? label(row[0]) : "other areas") + " (" + fmt(row[2]) + ")"));
      b.addEventListener("click", function () { setArea(state.area === row[0] ? null : row[0]); });
      li.append(b);
      legend.append(li);
    });
    if (S.width_legend) {
      var w = el("li", null, "kg-width");
      w.append(el("span", null, "kg-wedge"), el("span", "line width: " + S.width_legend));
      legend.append(w);
    }
  } else {
    S.types.forEach(function (kind) {
      var li = el("li");
      var lab = el("label", null, "kg-type");
      var box = el("input");
      box.type = "checkbox";
      box.checked = true;
      box.dataset.kind = kind;
      box.addEventListener("change", function () { state.types[kind] = box.checked; refresh(); });
      lab.append(box, swatch(kind), el("span", TYPE_NAMES[kind] + " (" + fmt(totals[kind] || 0) + ")"));
      li.append(lab);
      legend.append(li);
    });
  }

  P.fields.forEach(function (f) {
    var o = el("option", "\u2003".repeat(f[1]) + label(f[0]) + " (" + fmt(f[2]) + ")");
    o.value = f[0];
    fieldSelect.append(o);
  });
  function setField(value) {
    state.field = value;
    fieldSelect.value = value;
    if (value) markArea(null);
    refresh();
  }
  function markArea(area) {  // the legend's area filter; one filter at a time with the field's
    state.area = area;
    Array.prototype.forEach.call(legend.querySelectorAll(".kg-area-button"), function (b) {
      b.setAttribute("aria-pressed", area !== null && b.dataset.area === area ? "true" : "false");
    });
  }
  function setArea(area) {
    markArea(area);
    if (area !== null) { state.field = ""; fieldSelect.value = ""; }
    refresh();
  }

  // --- years -----------------------------------------------------------------------------

  var years = Object.keys(PAPERS).map(function (p) { return PAPERS[p].year; })
    .filter(function (y) { return y !== null && y !== undefined; });
  var yearFrom = $("kg-year-from");
  var yearTo = $("kg-year-to");
  if (!years.length || !nodeList.some(function (n) { return n.kind === "paper"; })) {
    $("kg-years").hidden = true;
  } else {
    var lo = Math.min.apply(null, years), hi = Math.max.apply(null, years);
    [yearFrom, yearTo].forEach(function (input) {
      input.min = String(lo);
      input.max = String(hi);
    });
    yearFrom.value = String(lo);
    yearTo.value = String(hi);
    var readYears = function () {
      var a = yearFrom.value === "" ? -Infinity : Number(yearFrom.value);
      var b = yearTo.value === "" ? Infinity : Number(yearTo.value);
      state.yearFrom = isNaN(a) ? -Infinity : a;
      state.yearTo = isNaN(b) ? Infinity : b;
      refresh();
    };
    yearFrom.addEventListener("input", readYears);
    yearTo.addEventListener("input", readYears);
  }

  // --- export: the papers shown, or found, as CSV ----------------------------------------

  function exportedPapers() {
    var ids = [];
    if (state.highlight) {
      ids = Array.from(state.highlight).filter(function (id) { return PAPERS[id] && visible[id]; });
      if (!ids.length && state.focus && CONCEPTS[state.focus]) ids = CONCEPTS[state.focus].papers.filter(inYears);
    } else if (nodeList.some(function (n) { return n.kind === "paper"; })) {
      ids = nodeList.filter(function (n) { return n.kind === "paper" && visible[n.id]; }).map(function (n) { return n.id; });
    } else {
      ids = Object.keys(PAPERS).filter(inYears);
    }
    return ids.sort();
  }
  function csvCell(value) {  // always quoted; a leading = + - @ cannot start a spreadsheet formula
    var s = value === null || value === undefined ? "" : String(value);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return '"' + s.replace(/"/g, '""') + '"';
  }
  function csvText() {
    var rows = [["id", "title", "authors", "year", "venue", "link"]];
    exportedPapers().forEach(function (id) {
      var q = PAPERS[id];
      rows.push([id.replace(/^paper:/, ""), q.title, q.authors.join("; "), q.year, q.venue, q.link]);
    });
    return rows.map(function (r) { return r.map(csvCell).join(","); }).join("\r\n") + "\r\n";
  }
  function keysText() {  // \cite{} keys: a BibTeX or Zotero record's key is its paper's id
    return exportedPapers().map(function (id) { return id.replace(/^paper:/, "") + "\n"; }).join("");
  }
  function download(text, type, name) {  // made in the page: works offline, from the file
    var url = URL.createObjectURL(new Blob([text], { type: type + ";charset=utf-8" }));
    var a = el("a");
    a.href = url;
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }
  $("kg-export").addEventListener("click", function () {
    download(csvText(), "text/csv", VIEW + "-papers.csv");
  });
  $("kg-export-keys").addEventListener("click", function () {
    download(keysText(), "text/plain", VIEW + "-keys.txt");
  });
  fieldSelect.addEventListener("change", function () { setField(fieldSelect.value); });

  var weight = $("kg-weight");
  var weightValue = $("kg-weight-value");
  $("kg-weight-label").textContent = "min " + S.weight.label;
  weight.max = String(Math.max(steps.length - 1, 0));
  weight.value = String(S.weight.start);
  function weightUsable() {  // the control filters one kind of link; off while those are off
    var usable = steps.length >= 2 && state.edgeOn[S.weight.kind] !== false;
    weight.disabled = !usable;
    $("kg-weight-control").title = steps.length < 2 ? "All these links have the same weight"
      : usable ? "" : "Switch on the " + EDGE_NAMES[S.weight.kind] + " to use this";
  }
  weightUsable();
  function readWeight() {
    var i = Number(weight.value);
    state.minWeight = threshold(i);
    weightValue.textContent = "≥ " + String(steps[i]);  // as rounded in Python: shown_weight
  }
  weight.addEventListener("input", function () { readWeight(); refresh(); });
  readWeight();

  var toggles = $("kg-edge-toggles");
  var present = {};
  edgeList.forEach(function (e) { present[e.kind] = (present[e.kind] || 0) + 1; });
  (S.edge_kinds || []).forEach(function (kind) {
    if (!present[kind]) return;
    var lab = el("label", null, "kg-toggle");
    var box = el("input");
    box.type = "checkbox";
    box.id = "kg-edges-" + kind;
    box.checked = state.edgeOn[kind] !== false;
    box.addEventListener("change", function () { state.edgeOn[kind] = box.checked; weightUsable(); refresh(); });
    lab.append(box, el("span", null, "kg-line kg-line-" + kind), el("span", EDGE_NAMES[kind]));
    toggles.append(lab);
  });

  var count = $("kg-count");
  function updateCount() {
    var shown = {};
    nodeView.get({ fields: ["kind"] }).forEach(function (n) { shown[n.kind] = (shown[n.kind] || 0) + 1; });
    var parts = ["paper"].concat(KINDS).filter(function (k) { return totals[k]; }).map(function (k) {
      return fmt(shown[k] || 0) + (shown[k] === totals[k] ? "" : " of " + fmt(totals[k])) + " " + TYPE_NAMES[k];
    });
    var e = edgeView.length;
    parts.push(fmt(e) + (e === edgeList.length ? "" : " of " + fmt(edgeList.length)) + " links");
    var hiddenNodes = nodeList.length - nodeView.length;
    count.textContent = "Showing " + parts.join(", ") +
      (hiddenNodes || e < edgeList.length ? " · hidden: " + plural(hiddenNodes, "node") + ", " + plural(edgeList.length - e, "link") : "");
    count.dataset.shown = String(nodeView.length);
    count.dataset.edges = String(e);
  }

  function refresh() {
    computeVisible();
    nodeView.refresh();
    edgeView.refresh();
    if (state.highlight) {
      if (state.focus && !visible[state.focus]) clearHighlight();
      else highlightEdges();
    }
    updateCount();
    network.redraw();
  }

  var bounds = $("kg-bounds");
  if (S.bounds.length) {
    var close = el("button", "×", "kg-close");
    close.type = "button";
    close.title = "Hide this note";
    close.addEventListener("click", function () { bounds.hidden = true; });
    bounds.append(close);
    S.bounds.forEach(function (line) { bounds.append(el("p", line)); });
    bounds.hidden = false;
  }

  $("kg-reset").addEventListener("click", function () {
    clearHighlight();
    search.value = "";
    hideSuggestions();
    fitAll(true);
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && document.activeElement !== search) { clearHighlight(); hideTip(); }
  });

  // --- ready -----------------------------------------------------------------------------

  fitAll(false);
  updateCount();
  network.once("afterDrawing", function () {
    window.kgReady = true;
    window.kgReadyAt = performance.now();
    document.body.dataset.ready = "true";
  });
  network.redraw();

  // A small read-only handle for tests and scripts.
  window.kgView = {
    labels: function () { return lastLabels.slice(); },
    groups: function () { return lastGroups.slice(); },
    visibleNodes: function () { return nodeView.getIds(); },
    visibleEdges: function () { return edgeView.get().map(function (e) { return { id: e.id, kind: e.kind, w: e.w, from: e.from, to: e.to }; }); },
    highlighted: function () { return state.highlight ? Array.from(state.highlight) : []; },
    focused: function () { return state.focus; },
    fitScale: function () { return fitScale; },
    choose: choose,
    find: function (text) { return findAll(text).map(function (f) { return f.e.id; }); },
    csv: csvText,
    keys: keysText
  };
