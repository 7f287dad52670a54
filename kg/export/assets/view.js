// kg's interactions on top of vis-network: labels, tooltips, search, filters, the detail panel.
// User text only ever reaches the page through textContent or the canvas's fillText: it is
// never parsed as markup, so labels and abstracts render literally whatever they contain.
(function () {
  "use strict";

  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  function $(id) { return document.getElementById(id); }

  var S = data("kg-settings");
  var P = data("kg-panel");
  var PAPERS = P.papers;
  var CONCEPTS = P.concepts;
  var VIEW = S.view;
  var KINDS = ["method", "problem", "field"];
  var TYPE_NAMES = { paper: "papers", method: "methods", problem: "problems", field: "fields" };
  var EDGE_NAMES = {
    shares: "shared-concept links",
    mentions: "concept links",
    broader: "concept hierarchy",
    cooccurs: "co-occurrence links"
  };
  var LABEL_FONT = "13px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  var GROUP_FONT = "600 14px system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif";
  var MIN_GROUP_RADIUS = 16;  // on-screen pixels: a smaller community is named once zoomed in
  var LABEL_HEIGHT = 16;
  var FIRST_LABELS = 40;   // labels at the initial zoom; more as you zoom in
  var MAX_LABELS = 400;

  var nodeList = data("kg-nodes");
  var edgeList = data("kg-edges");
  var byId = {};
  nodeList.forEach(function (n) { byId[n.id] = n; });
  var edgeById = {};
  edgeList.forEach(function (e) { edgeById[e.id] = e; });
  var labelOrder = nodeList.slice().sort(function (a, b) {
    return b.rank - a.rank || (a.id < b.id ? -1 : 1);
  }).map(function (n) { return n.id; });

  var state = {
    types: {}, field: "", minWeight: -Infinity, edgeOn: {}, area: null,
    yearFrom: -Infinity, yearTo: Infinity,
    highlight: null, focus: null, hover: null
  };
  (S.edges_off || []).forEach(function (k) { state.edgeOn[k] = false; });
  var steps = S.weight.steps;
  function threshold(i) { return i <= 0 ? -Infinity : steps[i]; }
  state.minWeight = threshold(S.weight.start);  // before the first draw: only what is shown

  // --- helpers ---------------------------------------------------------------------------

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function fmt(n) { return Number(n).toLocaleString("en-US"); }
  function plural(n, word, many) { return fmt(n) + " " + (n === 1 ? word : (many || word + "s")); }
  function label(id) {
    if (PAPERS[id]) return PAPERS[id].label;
    if (CONCEPTS[id]) return CONCEPTS[id].label;
    return id;
  }
  function kindOf(id) { return PAPERS[id] ? "paper" : (CONCEPTS[id] ? CONCEPTS[id].kind : ""); }
  function shorten(text, max) {
    if (text.length <= max) return text;
    var cut = text.lastIndexOf(" ", max - 1);
    return text.slice(0, cut > max * 0.6 ? cut : max - 1) + "…";
  }
  function swatch(kind, color) {
    var s = el("span", null, "kg-shape kg-shape-" + (kind || "paper"));
    s.style.setProperty("--c", color || kgColors[kind] || "#888");
    return s;
  }

  // --- fields ----------------------------------------------------------------------------

  var fieldPapers = {};
  function papersIn(field) {
    if (!fieldPapers[field]) {
      var set = new Set();
      Object.keys(PAPERS).forEach(function (p) {
        if (PAPERS[p].fields.indexOf(field) >= 0) set.add(p);
      });
      fieldPapers[field] = set;
    }
    return fieldPapers[field];
  }
  var fieldConcepts = {};
  function conceptsIn(field) {
    if (!fieldConcepts[field]) {
      var set = new Set();
      papersIn(field).forEach(function (p) {
        PAPERS[p].concepts.forEach(function (c) { set.add(c[0]); });
      });
      fieldConcepts[field] = set;
    }
    return fieldConcepts[field];
  }

  // --- the network -----------------------------------------------------------------------

  var visible = {};
  function inYears(p) {  // a paper without a year stays visible whatever the range
    var y = PAPERS[p] ? PAPERS[p].year : null;
    return y === null || y === undefined || (y >= state.yearFrom && y <= state.yearTo);
  }
  function nodeShown(n) {
    if (state.types[n.kind] === false) return false;
    if (n.kind === "paper" && !inYears(n.id)) return false;
    if (n.kind === "paper" && state.area !== null && (n.area || "") !== state.area) return false;
    if (!state.field) return true;
    return n.kind === "paper" ? papersIn(state.field).has(n.id) : conceptsIn(state.field).has(n.id);
  }
  function edgeShown(e) {
    if (state.edgeOn[e.kind] === false) return false;
    if (!visible[e.from] || !visible[e.to]) return false;
    return e.w === undefined || e.w >= state.minWeight;
  }
  function computeVisible() {
    visible = {};
    nodeList.forEach(function (n) { if (nodeShown(n)) visible[n.id] = true; });
  }
  computeVisible();

  var nodes = new vis.DataSet(nodeList);
  var edges = new vis.DataSet(edgeList);
  var nodeView = new vis.DataView(nodes, { filter: function (n) { return visible[n.id] === true; } });
  var edgeView = new vis.DataView(edges, { filter: edgeShown });
  var container = $("mynetwork");
  var network = new vis.Network(container, { nodes: nodeView, edges: edgeView }, kgOptions);
  window.network = network;

  var positions = {};
  nodeList.forEach(function (n) { positions[n.id] = { x: n.x, y: n.y }; });
  network.on("dragging", function (p) { updatePositions(p.nodes); });
  network.on("dragEnd", function (p) { updatePositions(p.nodes); });
  function updatePositions(ids) {
    if (!ids || !ids.length) return;
    var now = network.getPositions(ids);
    ids.forEach(function (id) { positions[id] = now[id]; });
  }

  var fitScale = 1;
  var fitPosition = { x: 0, y: 0 };
  function fitAll(animate) {
    if (!animate) {
      network.fit({ animation: false, maxZoomLevel: 2 });
      fitScale = network.getScale() * 0.92;  // room for the names above the groups
      fitPosition = network.getViewPosition();
    }
    network.moveTo({ scale: fitScale, position: fitPosition,
      animation: animate ? { duration: 400, easingFunction: "easeInOutQuad" } : false });
  }

  // --- drawing on top: highlight, group names, labels -----------------------------------

  (S.groups || []).forEach(function (g) { g.members = new Set(g.members); });
  var labelWidth = {};
  var lastLabels = [];
  var lastGroups = [];

  function shapePath(ctx, shape, x, y, r) {
    ctx.beginPath();
    if (shape === "square") {
      ctx.rect(x - r, y - r, 2 * r, 2 * r);
    } else if (shape === "diamond") {
      ctx.moveTo(x, y - r); ctx.lineTo(x + r, y); ctx.lineTo(x, y + r); ctx.lineTo(x - r, y);
      ctx.closePath();
    } else if (shape === "triangle") {
      var h = r * 1.15;
      ctx.moveTo(x, y - h); ctx.lineTo(x + h, y + h * 0.75); ctx.lineTo(x - h, y + h * 0.75);
      ctx.closePath();
    } else {
      ctx.arc(x, y, r, 0, 2 * Math.PI);
    }
  }

  function drawHighlight(ctx) {
    var h = state.highlight;
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = "rgba(255,255,255,0.8)";
    ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
    ctx.restore();
    (state.edges || []).forEach(function (e) {
      var a = positions[e.from], b = positions[e.to];
      ctx.beginPath();
      ctx.moveTo(a.x, a.y);
      ctx.lineTo(b.x, b.y);
      ctx.strokeStyle = e.color.color;
      ctx.globalAlpha = 0.85;
      ctx.lineWidth = Math.max(e.width, 1);
      ctx.stroke();
    });
    ctx.globalAlpha = 1;
    h.forEach(function (id) {
      var n = byId[id];
      if (!n || !visible[id]) return;
      var p = positions[id];
      shapePath(ctx, n.shape, p.x, p.y, n.size);
      ctx.fillStyle = n.color;
      ctx.fill();
      ctx.lineWidth = id === state.focus ? 4 : 1.5;
      ctx.strokeStyle = id === state.focus ? "#111" : "#333";
      ctx.stroke();
    });
  }

  function Boxes() { this.cells = {}; }
  Boxes.prototype.key = function (i, j) { return i + "," + j; };
  Boxes.prototype.hits = function (b, below) {
    for (var i = Math.floor(b.x / 64); i <= Math.floor((b.x + b.w) / 64); i++) {
      for (var j = Math.floor(b.y / 32); j <= Math.floor((b.y + b.h) / 32); j++) {
        var list = this.cells[this.key(i, j)];
        if (!list) continue;
        for (var k = 0; k < list.length; k++) {
          var o = list[k];
          if (below !== undefined && o.rank !== undefined && o.rank < below) continue;
          if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h) return true;
        }
      }
    }
    return false;
  };
  Boxes.prototype.any = function (b, test) {
    for (var i = Math.floor(b.x / 64); i <= Math.floor((b.x + b.w) / 64); i++) {
      for (var j = Math.floor(b.y / 32); j <= Math.floor((b.y + b.h) / 32); j++) {
        var list = this.cells[this.key(i, j)] || [];
        for (var k = 0; k < list.length; k++) {
          var o = list[k];
          if (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h && test(o)) return true;
        }
      }
    }
    return false;
  };
  Boxes.prototype.add = function (b) {
    for (var i = Math.floor(b.x / 64); i <= Math.floor((b.x + b.w) / 64); i++) {
      for (var j = Math.floor(b.y / 32); j <= Math.floor((b.y + b.h) / 32); j++) {
        var k = this.key(i, j);
        (this.cells[k] = this.cells[k] || []).push(b);
      }
    }
  };

  function labelText(id) {
    return shorten(label(id), kindOf(id) === "paper" ? 38 : 36);
  }

  function drawOverlay(ctx) {
    if (state.highlight) drawHighlight(ctx);
    var ratio = ctx.canvas.width / Math.max(ctx.canvas.clientWidth, 1);
    var W = ctx.canvas.clientWidth, H = ctx.canvas.clientHeight;
    var scale = network.getScale();
    ctx.save();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.textAlign = "left";
    ctx.textBaseline = "top";
    ctx.lineJoin = "round";
    var boxes = new Boxes();
    lastGroups = [];
    var nodeBoxes = new Boxes();
    nodeList.forEach(function (n) {
      if (!visible[n.id]) return;
      var r = Math.max(n.size * scale, 2);
      var p = network.canvasToDOM(positions[n.id]);
      if (p.x < -r || p.x > W + r || p.y < -r || p.y > H + r) return;
      nodeBoxes.add({ x: p.x - r, y: p.y - r, w: 2 * r, h: 2 * r, rank: n.rank, id: n.id });
    });
    function nodeHits(b, g) {  // a node that is not one of the group's own members
      return nodeBoxes.any(b, function (o) { return !g.members.has(o.id); });
    }
    if (S.groups && !state.highlight && !state.field) {  // community names, like a map's
      ctx.font = GROUP_FONT;
      // the biggest communities are named first; a disk too small to read beside is left
      S.groups.slice().sort(function (a, b) { return b.members.size - a.members.size; })
        .forEach(function (g) {
        var r = g.r * scale;
        if (r < MIN_GROUP_RADIUS || r > 320) return;
        var c = network.canvasToDOM({ x: g.x, y: g.y });
        var h = LABEL_HEIGHT + 4;
        // both names, else the first alone; above the disk, below it, or over its middle
        // (covering its own members only)
        var text, b;
        [shorten(g.label, 48), shorten(g.label.split(" · ")[0], 32)].some(function (t) {
          var w = ctx.measureText(t).width;
          text = t;
          b = [c.y - r - h - 2, c.y + r + 2, c.y - h / 2].map(function (y) {
            return { x: c.x - w / 2 - 4, y: y, w: w + 8, h: h };
          }).find(function (b) {
            return b.y >= 0 && b.y + b.h <= H && b.x >= 0 && b.x + b.w <= W && !boxes.hits(b) &&
              !nodeHits(b, g);
          });
          return b;
        });
        if (!b) return;
        boxes.add(b);
        ctx.fillStyle = "rgba(255,255,255,0.78)";
        ctx.fillRect(b.x, b.y, b.w, b.h);
        ctx.lineWidth = 4; ctx.strokeStyle = "rgba(255,255,255,0.95)";
        ctx.strokeText(text, b.x + 4, b.y + 3);
        ctx.fillStyle = "#2f3843";
        ctx.fillText(text, b.x + 4, b.y + 3);
        lastGroups.push({ text: text, x: b.x, y: b.y, w: b.w, h: b.h });
        });
    }
    Object.keys(nodeBoxes.cells).forEach(function (k) {  // labels do not cover other nodes
      nodeBoxes.cells[k].forEach(function (o) { if (o.w >= 6 && !o.seen) { o.seen = true; boxes.add(o); } });
    });
    ctx.font = LABEL_FONT;
    var first = lastGroups.length ? FIRST_LABELS / 2 : FIRST_LABELS;  // names of groups first
    var budget = Math.min(MAX_LABELS, Math.round(first * Math.max(1, Math.pow(scale / fitScale, 2))));
    var forced = [];
    if (state.focus) forced.push(state.focus);
    if (state.hover) forced.push(state.hover);
    var pool = state.highlight ? labelOrder.filter(function (id) { return state.highlight.has(id); }) : labelOrder;
    var seen = {};
    var drawn = [];
    var count = 0;
    forced.concat(pool).some(function (id) {
      if (seen[id] || !visible[id] || !byId[id]) return false;
      seen[id] = true;
      var p = network.canvasToDOM(positions[id]);
      var r = byId[id].size * scale;
      if (p.x < -200 || p.x > W + 200 || p.y < -40 || p.y > H + 40) return false;
      var text = labelText(id);
      var w = labelWidth[id];
      if (w === undefined) w = labelWidth[id] = ctx.measureText(text).width;
      var spots = [
        { x: p.x - w / 2 - 2, y: p.y + r + 1 },                  // below
        { x: p.x + r + 3, y: p.y - LABEL_HEIGHT / 2 },           // right
        { x: p.x - w / 2 - 2, y: p.y - r - LABEL_HEIGHT - 1 },   // above
        { x: p.x - r - w - 7, y: p.y - LABEL_HEIGHT / 2 }        // left
      ];
      // The most important labels may cover less important nodes, never another label.
      var passes = count < 12 || forced.indexOf(id) >= 0 ? [undefined, byId[id].rank] : [undefined];
      for (var pass = 0; pass < passes.length; pass++) {
        for (var k = 0; k < spots.length; k++) {
          var b = { x: spots[k].x, y: spots[k].y, w: w + 4, h: LABEL_HEIGHT };
          if (b.x < 0 || b.x + b.w > W || b.y < 0 || b.y + b.h > H || boxes.hits(b, passes[pass])) continue;
          boxes.add(b);
          drawn.push({ id: id, text: text, x: b.x, y: b.y, w: b.w, h: b.h });
          count += 1;
          return count >= budget;
        }
      }
      return false;
    });
    drawn.forEach(function (d) {
      ctx.font = d.id === state.focus ? "600 " + LABEL_FONT : LABEL_FONT;
      ctx.lineWidth = 3.5; ctx.strokeStyle = "rgba(255,255,255,0.95)";
      ctx.strokeText(d.text, d.x + 2, d.y + 1);
      ctx.fillStyle = "#1d232b";
      ctx.fillText(d.text, d.x + 2, d.y + 1);
    });
    ctx.restore();
    lastLabels = drawn.map(function (d) {
      return { id: d.id, text: d.text, x: d.x, y: d.y, w: d.w, h: d.h, px: 13 };
    });
  }
  network.on("afterDrawing", drawOverlay);
  network.on("beforeDrawing", function (ctx) {  // a faint disk behind each community
    if (!S.groups) return;
    ctx.save();
    ctx.fillStyle = "rgba(59, 85, 120, 0.05)";
    S.groups.forEach(function (g) {
      ctx.beginPath();
      ctx.arc(g.x, g.y, g.r + 14, 0, 2 * Math.PI);
      ctx.fill();
    });
    ctx.restore();
  });

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
      return [label(e.from), m[1] + " " + label(e.to) + " · confidence " + m[2].toFixed(2),
        m[3] >= 0 ? "“" + PAPERS[e.from].sentences[m[3]] + "”" : ""];
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
  function hideTip() { tip.hidden = true; }
  network.on("hoverNode", function (p) {
    state.hover = p.node;
    showTip(nodeSummary(p.node), p.pointer.DOM);
    network.redraw();
  });
  network.on("blurNode", function () { state.hover = null; hideTip(); network.redraw(); });
  network.on("hoverEdge", function (p) {
    if (state.hover) return;
    var e = edgeById[p.edge];
    if (e) showTip(edgeSummary(e), p.pointer.DOM);
  });
  network.on("blurEdge", function () { if (!state.hover) hideTip(); });
  container.addEventListener("mouseleave", function () {
    hideTip();
    if (state.hover) { state.hover = null; network.redraw(); }
  });
  network.on("dragStart", hideTip);
  network.on("zoom", hideTip);

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
      : "Not drawn in this view (see the note on the map); listed here in full.";
    detail.append(el("p", why, "kg-note"));
  }
  function showPaper(id) {
    var q = PAPERS[id];
    detail.append(el("h2", q.title));
    if (q.label !== q.title) detail.append(el("p", "Label: " + q.label, "kg-meta"));
    if (q.derived) detail.append(el("p", "No title given: the label is made from its concepts.", "kg-meta"));
    if (q.meta) detail.append(el("p", q.meta, "kg-meta"));
    if (q.authors.length) {
      var more = q.authors.length - q.shown_authors;
      detail.append(el("p", q.authors.slice(0, q.shown_authors).join(", ") + (more > 0 ? " and " + more + " more" : "")));
    }
    if (q.keywords.length) detail.append(el("p", "Keywords: " + q.keywords.join(", "), "kg-meta"));
    if (q.link && /^https?:\/\//i.test(q.link)) {
      var out = el("a", "Read the paper ↗", "kg-out");
      out.href = q.link;
      out.target = "_blank";
      out.rel = "noopener noreferrer";
      var where = el("p");
      where.append(out);
      detail.append(where);
    }
    if (q.ids.length) detail.append(el("p", q.ids.join(" · "), "kg-meta kg-ids"));
    notDrawn(id);
    if (q.abstract) detail.append(el("h3", "Abstract"), el("p", q.abstract, "kg-abstract"));
    KINDS.concat([""]).forEach(function (kind) {
      var items = q.concepts.filter(function (c) {
        var k = kindOf(c[0]);
        return kind ? k === kind : KINDS.indexOf(k) < 0;
      });
      if (!items.length) return;
      section((kind ? TYPE_NAMES[kind] : "other concepts") + " (" + items.length + ")", items.map(function (c) {
        var li = el("li");
        li.append(swatch(kindOf(c[0])), ref(c[0]), el("span", " — " + c[1] + ", confidence " + c[2].toFixed(2), "kg-meta"));
        if (c[3] >= 0) li.append(el("div", "“" + q.sentences[c[3]] + "”", "kg-evidence"));
        return li;
      }));
    });
    if (q.near.length) {
      section("nearest papers (" + q.near.length + (q.links > q.near.length ? " of " + q.links : "") + ")",
        q.near.map(function (n) {
          var li = el("li", null, "kg-near");
          li.append(ref(n[0]), el("span", " — weight " + String(n[1]), "kg-meta"));
          if (n[2]) li.append(el("div", "shares " + n[2], "kg-why"));
          return li;
        }));
    } else {
      detail.append(el("h3", "nearest papers"), el("p", "No shared-concept links.", "kg-meta"));
    }
  }
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
    section("papers (" + papers.length + ")", papers.map(function (x) {
      var li = el("li");
      li.append(ref(x[0]));
      if (x[1]) li.append(el("span", " — " + x[1][1] + ", " + x[1][2].toFixed(2), "kg-meta"));
      return li;
    }));
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
  $("kg-export").addEventListener("click", function () {
    var url = URL.createObjectURL(new Blob([csvText()], { type: "text/csv;charset=utf-8" }));
    var a = el("a");
    a.href = url;
    a.download = VIEW + "-papers.csv";
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
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
    csv: csvText
  };
})();
