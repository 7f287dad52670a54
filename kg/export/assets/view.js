// kg's interactions on top of vis-network. All user text goes through
// textContent, never parsed as markup, so labels and abstracts render literally.
(function () {
  "use strict";
  var detail = document.getElementById("kg-detail");
  var loading = document.getElementById("kg-loading");
  var progress = document.getElementById("kg-progress");
  var search = document.getElementById("kg-search");
  var sharesBox = document.getElementById("kg-shares");
  var KINDS = ["method", "problem", "field"];

  window.kgStabilized = false;
  network = new vis.Network(
    document.getElementById("mynetwork"), { nodes: nodes, edges: edges }, options
  );
  window.network = network;

  function settled() {
    if (window.kgStabilized) return;
    network.setOptions({ physics: { enabled: false } });
    loading.style.display = "none";
    window.kgStabilized = true;
  }
  network.on("stabilizationProgress", function (p) {
    progress.textContent = Math.round((100 * p.iterations) / p.total) + "%";
  });
  network.once("stabilizationIterationsDone", settled);
  network.once("stabilized", settled);
  if (nodes.length === 0) settled();

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }

  function nodeRef(id, text) {
    if (!nodes.get(id)) return el("span", text);
    var a = el("a", text, "kg-link");
    a.href = "#";
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      focusNode(id);
    });
    return a;
  }

  function badge(kind) {
    var b = el("span", kind, "kg-kind");
    b.style.background = kgColors[kind] || "#888";
    return b;
  }

  function showPaper(n, k) {
    detail.append(el("h2", k.title));
    if (k.title !== n.label) detail.append(el("p", n.label, "kg-meta"));
    if (k.meta) detail.append(el("p", k.meta, "kg-meta"));
    if (k.authors.length) detail.append(el("p", k.authors.join(", ")));
    if (k.abstract) {
      detail.append(el("h3", "Abstract"), el("p", k.abstract));
    }
    KINDS.concat(["other"]).forEach(function (kind) {
      var items = k.concepts.filter(function (c) {
        return kind === "other" ? KINDS.indexOf(c.kind) < 0 : c.kind === kind;
      });
      if (!items.length) return;
      var ul = el("ul");
      items.forEach(function (c) {
        var li = el("li");
        li.append(nodeRef(c.id, c.label), el("span", " — " + c.role + ", score " + c.score.toFixed(2), "kg-meta"));
        if (c.evidence) li.append(el("div", "“" + c.evidence + "”", "kg-evidence"));
        ul.append(li);
      });
      detail.append(el("h3", kind + " (" + items.length + ")"), ul);
    });
  }

  function showConcept(n, k) {
    detail.append(el("h2", n.label));
    var p = el("p");
    p.append(badge(k.kind), el("span", " " + k.papers.length + " paper" + (k.papers.length === 1 ? "" : "s"), "kg-meta"));
    detail.append(p);
    if (k.alt.length) detail.append(el("p", "Also: " + k.alt.join(", "), "kg-meta"));
    var ul = el("ul");
    k.papers.forEach(function (q) {
      var li = el("li");
      li.append(nodeRef(q.id, q.label));
      if (q.role) li.append(el("span", " — " + q.role, "kg-meta"));
      ul.append(li);
    });
    detail.append(el("h3", "Papers"), ul);
  }

  function show(id) {
    var n = nodes.get(id);
    if (!n) return;
    detail.replaceChildren();
    detail.dataset.node = id;
    if (n.kg.type === "paper") showPaper(n, n.kg);
    else showConcept(n, n.kg);
    detail.scrollTop = 0;
  }

  function focusNode(id) {
    network.selectNodes([id]);
    network.focus(id, { scale: Math.max(network.getScale(), 0.8), animation: { duration: 400 } });
    show(id);
  }

  network.on("click", function (params) {
    if (params.nodes.length) show(params.nodes[0]);
  });

  var matches = [];
  var matchAt = -1;
  search.addEventListener("input", function () {
    var q = search.value.trim().toLowerCase();
    matches = q ? nodes.getIds({
      filter: function (n) { return n.label.toLowerCase().indexOf(q) >= 0; },
      order: "label"
    }) : [];
    matchAt = -1;
    search.classList.toggle("kg-miss", q !== "" && matches.length === 0);
  });
  search.addEventListener("keydown", function (ev) {
    if (ev.key !== "Enter" || !matches.length) return;
    matchAt = (matchAt + 1) % matches.length;
    focusNode(matches[matchAt]);
  });

  var shareIds = edges.getIds({ filter: function (e) { return e.kgType === "shares"; } });
  sharesBox.addEventListener("change", function () {
    edges.update(shareIds.map(function (id) { return { id: id, hidden: !sharesBox.checked }; }));
  });
})();
