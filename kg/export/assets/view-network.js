// kg's view script, part 1 of 3: the data, the network and what is drawn on it.
// The three parts run in this order inside one function (kg.export.views.page);
// user text only ever reaches the page through textContent or the canvas's fillText.

  function data(id) { return JSON.parse(document.getElementById(id).textContent); }
  function $(id) { return document.getElementById(id); }

  var S = data("kg-settings");
  var P = data("kg-panel");
  var PAPERS = P.papers;
  var CONCEPTS = {};
  // The page names a concept by its number and a role by its number (kg.export.views.panel);
  // read back here, so the rest of the script sees IRIs and role names.
  var NAMES = P.concepts.map(function (c) { c.papers = []; CONCEPTS[c.id] = c; return c.id; });
  Object.keys(PAPERS).sort().forEach(function (p) {  // each concept's papers, from their links
    var q = PAPERS[p];
    q.concepts.forEach(function (c) { c[0] = NAMES[c[0]]; c[1] = P.roles[c[1]]; CONCEPTS[c[0]].papers.push(p); });
    q.fields = q.fields.map(function (f) { return NAMES[f]; });
    if (q.title === undefined) q.title = q.label;
    q.derived = !!q.derived;
    if (q.link === undefined) q.link = null;
  });
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
