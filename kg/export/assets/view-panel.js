// kg's view script, part 2 of 3: tooltips, the detail panel, highlight and focus.
  // --- tooltips (kg's own, as text) --------------------------------------------------------

  var tip = $("kg-tip");
  function tipLines(lines) {
    tip.replaceChildren();
    lines.forEach(function (line, i) {
      if (!line) return;
      tip.append(el("div", line, i === 0 ? "kg-tip-head" : null));
    });
  }
  function nodeSummary(id) {
    if (PAPERS[id]) {
      var q = PAPERS[id];
      var counts = {};
      q.concepts.forEach(function (c) { var k = kindOf(c[0]); counts[k] = (counts[k] || 0) + 1; });
      var top = q.concepts.filter(function (c) { return kindOf(c[0]) !== "field"; }).slice(0, 4)
        .map(function (c) { return label(c[0]); });
      var names = q.authors.slice(0, 3).join(", ") + (q.authors.length > 3 ? " et al." : "");
      return [
        q.title,
        q.label !== q.title ? q.label : "",
        [q.meta, names].filter(Boolean).join(" · "),
        KINDS.filter(function (k) { return counts[k]; }).map(function (k) { return plural(counts[k], k); }).join(", ") +
          (q.links ? " · " + plural(q.links, "shared-concept link") : ""),
        top.length ? "concepts: " + top.join(", ") : ""
      ];
    }
    var c = CONCEPTS[id];
    return [
      c.label,
      c.kind + " · " + plural(c.papers.length, "paper"),
      c.alt.length ? "also: " + c.alt.slice(0, 4).join(", ") + (c.alt.length > 4 ? ", …" : "") : "",
      c.broader.length ? "broader: " + c.broader.map(label).join(", ") : "",
      c.narrower.length ? "narrower: " + plural(c.narrower.length, "concept") : ""
    ];
  }
  function mention(p, c) {
    var q = PAPERS[p];
    for (var i = 0; i < q.concepts.length; i++) if (q.concepts[i][0] === c) return q.concepts[i];
    return null;
  }
  function explanationLines(e) {  // one line per shared concept, saying how it is shared
    var parts = e.why.split("; ");
    if (parts.length !== e.n) return [e.why];
    return parts.map(function (part, i) {
      return "· " + part + (e.how[i] === "exact" ? " (in both)" : "");
    });
  }
  function edgeSummary(e) {
    if (e.kind === "shares") {
      return [label(e.from) + " ↔ " + label(e.to),
        "weight " + String(e.w) + " · " + plural(e.n, "shared concept")]
        .concat(explanationLines(e));
    }
    if (e.kind === "mentions") {
      var m = mention(e.from, e.to);
      if (!m) return [label(e.from) + " — " + label(e.to)];
      var d = details[e.from];
      if (!d && m[3] >= 0) {  // the cited sentence is in the paper's details: shown once loaded
        withDetails(e.from, function (loaded) {
          if (loaded && state.tipEdge === e.id && !state.hover) showTip(edgeSummary(e), state.tipAt);
        });
      }
      return [label(e.from), m[1] + " " + label(e.to) + " · confidence " + m[2].toFixed(2),
        m[3] >= 0 && d ? "“" + d.sentences[m[3]] + "”" : ""];
    }
    if (e.kind === "cooccurs") {
      var mine = new Set(CONCEPTS[e.from].papers);
      var both = CONCEPTS[e.to].papers.filter(function (p) { return mine.has(p); });
      return [label(e.from) + " + " + label(e.to), "together in " + plural(both.length, "paper")]
        .concat(both.slice(0, 4).map(function (p) { return "· " + shorten(label(p), 70); }))
        .concat(both.length > 4 ? ["· …"] : []);
    }
    return [label(e.from) + " → " + label(e.to), label(e.from) + " is narrower than " + label(e.to)];
  }
  function showTip(lines, pointer) {
    tipLines(lines);
    tip.hidden = false;
    var box = container.getBoundingClientRect();
    var x = pointer.x + 16, y = pointer.y + 16;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > box.width - 8) x = Math.max(8, pointer.x - w - 12);
    if (y + h > box.height - 8) y = Math.max(8, pointer.y - h - 12);
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function hideTip() { tip.hidden = true; state.tipEdge = null; }
  network.on("hoverNode", function (p) {
    state.hover = p.node;
    showTip(nodeSummary(p.node), p.pointer.DOM);
    network.redraw();
  });
  network.on("blurNode", function () { state.hover = null; hideTip(); network.redraw(); });
  network.on("hoverEdge", function (p) {
    if (state.hover) return;
    var e = edgeById[p.edge];
    state.tipEdge = e ? e.id : null;
    state.tipAt = p.pointer.DOM;
    if (e) showTip(edgeSummary(e), p.pointer.DOM);
  });
  network.on("blurEdge", function () { state.tipEdge = null; if (!state.hover) hideTip(); });
  container.addEventListener("mouseleave", function () {
    hideTip();
    if (state.hover) { state.hover = null; network.redraw(); }
  });
  network.on("dragStart", hideTip);
  network.on("zoom", hideTip);

  // --- a paper's details, loaded when first needed -----------------------------------------
  // Its abstract, cited sentences, nearest papers, keywords and identifiers are in a script
  // beside the page (kg.export.views.panel), shared by the three views; it calls kgDetails
  // with the build it was written by, and a file of another build is not read.

  var details = {};  // paper -> its details, once its file has loaded
  var files = {};    // file number -> [paper, callback] pairs waiting for it; true once done
  var stale = {};    // file number -> true when the file found is of another build
  window.kgDetails = function (number, build, data) {
    if (build !== P.build) { stale[number] = true; return; }
    Object.keys(data).forEach(function (p) {
      if (PAPERS[p] && PAPERS[p].file === number) details[p] = data[p];
    });
  };
  function detailsFile(number) { return P.details + "/" + String(number).padStart(4, "0") + ".js"; }
  function withDetails(id, then) {  // then(details), or then(null) if its file is missing
    var n = PAPERS[id].file;
    if (details[id] || files[n] === true) { then(details[id] || null); return; }
    if (files[n]) { files[n].push([id, then]); return; }
    files[n] = [[id, then]];
    var script = document.createElement("script");
    function done() {
      var waiting = files[n];
      files[n] = true;
      script.remove();
      waiting.forEach(function (w) { w[1](details[w[0]] || null); });
    }
    script.onload = done;
    script.onerror = done;
    script.src = detailsFile(n);
    document.head.append(script);
  }

  // --- the detail panel ----------------------------------------------------------------

  var detail = $("kg-detail");
  function ref(id, text) {
    var a = el("a", text || label(id), "kg-link");
    a.href = "#";
    a.dataset.node = id;
    a.addEventListener("click", function (ev) { ev.preventDefault(); choose(id); });
    return a;
  }
  function section(title, items) {
    detail.append(el("h3", title));
    var ul = el("ul");
    items.forEach(function (li) { ul.append(li); });
    detail.append(ul);
  }
  function notDrawn(id) {
    if (byId[id]) return;
    var why = VIEW === "paper-map" && CONCEPTS[id]
      ? "Concepts are not nodes of the paper map: its papers are highlighted."
      : "Not drawn in this view (see the note on the map); listed here.";
    detail.append(el("p", why, "kg-note"));
  }
  var shown = 0;  // counts the panels shown: a paper's details fill only the latest one
  function showPaper(id) {
    var mine = shown;
    detail.dataset.loading = "true";
    withDetails(id, function (d) {
      if (shown !== mine) return;  // another panel was shown meanwhile (the same paper too)
      delete detail.dataset.loading;
      paperPanel(id, d);
    });
  }
  function paperPanel(id, d) {
    var q = PAPERS[id];
    detail.append(el("h2", q.title));
    if (q.label !== q.title) detail.append(el("p", "Label: " + q.label, "kg-meta"));
    if (q.derived) detail.append(el("p", "No title given: the label is made from its concepts.", "kg-meta"));
    if (q.meta) detail.append(el("p", q.meta, "kg-meta"));
    if (q.authors.length) {
      var more = q.authors.length - P.shown_authors;
      detail.append(el("p", q.authors.slice(0, P.shown_authors).join(", ") + (more > 0 ? " and " + more + " more" : "")));
    }
    if (!d) {
      detail.append(el("p", "Its abstract, evidence and nearest papers are in " + detailsFile(q.file) + (stale[q.file]
        ? ", which is from another build than this page: keep each build's pages and its folder " +
          P.details + " together, or write the views again (kg view)."
        : ", which was not found beside this page: keep the folder " + P.details + " with the views."), "kg-note"));
      d = { abstract: "", sentences: [], near: null, keywords: [], ids: [] };
    }
    if (d.keywords.length) detail.append(el("p", "Keywords: " + d.keywords.join(", "), "kg-meta"));
    if (q.link && /^https?:\/\//i.test(q.link)) {
      var out = el("a", "Read the paper ↗", "kg-out");
      out.href = q.link;
      out.target = "_blank";
      out.rel = "noopener noreferrer";
      var where = el("p");
      where.append(out);
      detail.append(where);
    }
    if (d.ids.length) detail.append(el("p", d.ids.join(" · "), "kg-meta kg-ids"));
    notDrawn(id);
    if (d.abstract) detail.append(el("h3", "Abstract"), el("p", d.abstract, "kg-abstract"));
    KINDS.concat([""]).forEach(function (kind) {
      var items = q.concepts.filter(function (c) {
        var k = kindOf(c[0]);
        return kind ? k === kind : KINDS.indexOf(k) < 0;
      });
      if (!items.length) return;
      section((kind ? TYPE_NAMES[kind] : "other concepts") + " (" + items.length + ")", items.map(function (c) {
        var li = el("li");
        li.append(swatch(kindOf(c[0])), ref(c[0]), el("span", " — " + c[1] + ", confidence " + c[2].toFixed(2), "kg-meta"));
        if (c[3] >= 0 && d.sentences[c[3]]) li.append(el("div", "“" + d.sentences[c[3]] + "”", "kg-evidence"));
        return li;
      }));
    });
    if (d.near === null) return;
    if (d.near.length) {
      section("nearest papers (" + d.near.length + (q.links > d.near.length ? " of " + q.links : "") + ")",
        d.near.map(function (n) {
          var li = el("li", null, "kg-near");
          li.append(ref(n[0]), el("span", " — weight " + String(n[1]), "kg-meta"));
          if (n[2]) li.append(el("div", "shares " + n[2], "kg-why"));
          return li;
        }));
    } else {
      detail.append(el("h3", "nearest papers"), el("p", "No shared-concept links.", "kg-meta"));
    }
  }
  // A concept's papers are listed the surest first, PAPERS_AT_ONCE at a time: the top concept
  // of 50,000 papers took 2 s to list in full.
  var PAPERS_AT_ONCE = 200;
  function showConcept(id) {
    var c = CONCEPTS[id];
    detail.append(el("h2", c.label));
    var p = el("p");
    p.append(swatch(c.kind), el("span", " " + c.kind + " · " + plural(c.papers.length, "paper"), "kg-meta"));
    detail.append(p);
    if (c.alt.length) detail.append(el("p", "Also: " + c.alt.join(", "), "kg-meta"));
    notDrawn(id);
    if (c.broader.length) section("broader (" + c.broader.length + ")", c.broader.map(conceptItem));
    if (c.narrower.length) section("narrower (" + c.narrower.length + ")", c.narrower.map(conceptItem));
    var papers = c.papers.map(function (q) { return [q, mention(q, id)]; });
    papers.sort(function (a, b) { return (b[1] ? b[1][2] : 0) - (a[1] ? a[1][2] : 0) || (label(a[0]) < label(b[0]) ? -1 : 1); });
    section("papers (" + papers.length + ")", papers.slice(0, PAPERS_AT_ONCE).map(paperLine));
    if (papers.length > PAPERS_AT_ONCE) more(detail.lastChild, papers, PAPERS_AT_ONCE);
  }
  function paperLine(x) {  // a paper of a concept, with its role and confidence there
    var li = el("li");
    li.append(ref(x[0]));
    if (x[1]) li.append(el("span", " — " + x[1][1] + ", " + x[1][2].toFixed(2), "kg-meta"));
    return li;
  }
  function more(ul, papers, from) {
    var left = papers.length - from;
    var button = el("button", "show " + Math.min(left, PAPERS_AT_ONCE) + " more of " + left, "kg-show-more");
    button.type = "button";
    button.addEventListener("click", function () {
      papers.slice(from, from + PAPERS_AT_ONCE).forEach(function (x) { ul.append(paperLine(x)); });
      button.remove();
      if (left > PAPERS_AT_ONCE) more(ul, papers, from + PAPERS_AT_ONCE);
    });
    ul.after(button);
  }
  function conceptItem(id) {
    var li = el("li");
    li.append(swatch(kindOf(id)), ref(id));
    if (CONCEPTS[id]) li.append(el("span", " — " + plural(CONCEPTS[id].papers.length, "paper"), "kg-meta"));
    return li;
  }
  function show(id) {
    if (!PAPERS[id] && !CONCEPTS[id]) return;
    detail.replaceChildren();
    detail.dataset.node = id;
    delete detail.dataset.loading;
    shown += 1;
    if (PAPERS[id]) showPaper(id); else showConcept(id);
    detail.scrollTop = 0;
  }

  // --- highlight and focus -----------------------------------------------------------------

  function highlight(ids, focus) {
    state.highlight = ids ? new Set(ids) : null;
    state.focus = focus || null;
    highlightEdges();
    network.redraw();
  }
  function highlightEdges() {  // the edges drawn over the dimmed graph, found once
    var h = state.highlight;
    state.edges = !h ? null : edgeView.get({
      filter: function (e) {
        var touches = state.focus ? (e.from === state.focus || e.to === state.focus) : true;
        return touches && h.has(e.from) && h.has(e.to);
      }
    });
  }
  function clearHighlight() {
    highlight(null);
    network.unselectAll();
  }
  function reveal(id) {
    var n = byId[id];
    var changed = false;
    if (state.types[n.kind] === false) { state.types[n.kind] = true; changed = true; }
    if (state.field && !nodeShown(n)) { state.field = ""; fieldSelect.value = ""; changed = true; }
    if (changed) refresh();
  }
  function choose(id, options) {
    var zoom = !options || options.zoom !== false;
    hideSuggestions();
    if (byId[id]) {
      reveal(id);
      var around = network.getConnectedNodes(id);
      highlight([id].concat(around), id);
      network.selectNodes([id]);
      if (zoom) {
        network.fit({ nodes: [id].concat(around.length <= 80 ? around : []),
          maxZoomLevel: 1.2, animation: { duration: 450, easingFunction: "easeInOutQuad" } });
      }
    } else if (CONCEPTS[id] && VIEW === "paper-map") {
      var papers = CONCEPTS[id].papers.filter(function (p) { return byId[p] && visible[p]; });
      highlight(papers, null);
      network.selectNodes(papers);
      if (zoom && papers.length) {
        network.fit({ nodes: papers, maxZoomLevel: 1.5, animation: { duration: 450, easingFunction: "easeInOutQuad" } });
      }
    } else {
      clearHighlight();
    }
    show(id);
    updateCount();
  }
  network.on("click", function (p) {
    if (p.nodes.length) choose(p.nodes[0], { zoom: false });
    else if (!p.edges.length) clearHighlight();
  });
  network.on("doubleClick", function (p) { if (p.nodes.length) choose(p.nodes[0]); });
