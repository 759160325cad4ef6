/* fairjudge pages: the explorer, generic over records. The records arrive as JSON in
   the application/json block #fj-records (which the browser never runs), the spec of
   its filters, selects and sorts in #fj-explorer-spec. A record is
   {k: key, t: title line (k when absent), h: detail heading (t when absent), x: a line under the title,
   s: search text, f: {flag: true}, v: {facet: value or [values]}, n: {sort: number},
   d: [section]}; a section is {h: heading, c: class, rows: [[label, text]],
   fail: failure text, pre: text, cols: [...], cells: [[...]], two: [section] side by
   side}, each part optional and drawn in that order.
   Wording every record would repeat is said once, in the spec: spec.head is put before
   the title of a record without h ("Item " + t), and spec.snippet builds the line of a
   record without x from its details: each part a path into d (a section's index,
   then keys and indexes) and the most characters it keeps, joined by " · ". A section
   heading or a row label that is a number is spec.labels at that index: "outcome",
   "Question" and the like are written once, not on every record.
   Every string from them reaches the page through textContent (never innerHTML), so
   an answer that holds markup shows as text; their hidden characters (bidi overrides)
   were made visible before the page was written. Only one page of rows is in the DOM
   at a time, so 10,000 records stay smooth. Keys: up and down move, Enter opens,
   left and right turn the page. */
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var holder = $("fj-records"), list = $("fj-list");
  if (!holder || !list) { document.body.dataset.ready = "1"; return; }
  var records = JSON.parse(holder.textContent);
  var spec = JSON.parse($("fj-explorer-spec").textContent);
  var flagSpecs = spec.flags || [], facetSpecs = spec.facets || [], labels = spec.labels || [];
  var PAGE = 50, NONE = "\u0000none";
  var noun = $("fj-count").dataset.noun || "items";
  var state = { flags: {}, facets: {}, query: "", sort: "", page: 0 };
  var view = [], current = -1, selected = 0, haystack = null, byKey = new Map(), fromHash;
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  records.forEach(function (r, i) { byKey.set(r.k, i); });

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) { if (arguments[i]) { parent.appendChild(arguments[i]); } }
    return parent;
  }
  function word(v) { return typeof v === "number" ? labels[v] : v; }
  function heading(r) {
    if (r.h !== undefined) { return r.h; }
    return (spec.head || "") + (r.t || r.k);
  }
  function snippet(r) {
    if (r.x !== undefined || !spec.snippet) { return r.x; }
    return spec.snippet.map(function (part) {
      var at = r.d;
      part.path.forEach(function (step) { at = at === undefined || at === null ? at : at[step]; });
      var text = at === undefined || at === null ? "" : String(at);
      return part.cut ? Array.from(text).slice(0, part.cut).join("") : text;
    }).join(" \u00b7 ");
  }
  function valuesOf(r, key) {
    var v = r.v ? r.v[key] : undefined;
    if (v === undefined || v === null) { return [NONE]; }
    return Array.isArray(v) ? v.map(String) : [String(v)];
  }
  /* What the search reads: the title, the search text and every string of the detail
     sections, so a record need not repeat its details in s. Built on the first search. */
  function detailText(d) {
    var parts = [];
    (d || []).forEach(function (s) {
      if (s.pre !== undefined) { parts.push(s.pre); }
      if (s.fail !== undefined) { parts.push(s.fail); }
      (s.rows || []).forEach(function (r) { parts.push(r[1]); });
      (s.cells || []).forEach(function (c) { parts.push(c.join(" ")); });
      parts.push(detailText(s.two));
    });
    return parts.join("\n");
  }
  function search(i) {
    if (haystack === null) {
      haystack = records.map(function (r) {
        return [r.t || "", r.s || "", r.k, detailText(r.d)].join("\n").toLowerCase();
      });
    }
    return haystack[i];
  }
  function matches(i, flags, facets, query) {
    var r = records[i];
    for (var a = 0; a < flags.length; a++) { if (!(r.f && r.f[flags[a]])) { return false; } }
    for (var b = 0; b < facets.length; b++) {
      if (valuesOf(r, facets[b]).indexOf(state.facets[facets[b]]) < 0) { return false; }
    }
    return !query || search(i).indexOf(query) >= 0;
  }
  function apply() {
    var flags = flagSpecs.map(function (s) { return s.key; }).filter(function (k) { return state.flags[k]; });
    var facets = facetSpecs.map(function (s) { return s.key; }).filter(function (k) { return state.facets[k]; });
    var query = state.query.trim().toLowerCase();
    view = [];
    for (var i = 0; i < records.length; i++) { if (matches(i, flags, facets, query)) { view.push(i); } }
    sortView();
    state.page = 0;
    selected = 0;
    renderList();
  }
  /* By a record's number n[key], low or high first; a record without one goes last. */
  function sortView() {
    var m = /^(.*)-(asc|desc)$/.exec(state.sort);
    if (!m) { return; }
    var key = m[1], sign = m[2] === "asc" ? 1 : -1;
    function num(i) { var n = records[i].n ? records[i].n[key] : undefined; return n === null ? undefined : n; }
    view.sort(function (a, b) {
      var x = num(a), y = num(b);
      if (x === undefined || y === undefined) { return (x === undefined) - (y === undefined) || a - b; }
      return sign * (x - y) || a - b;
    });
  }
  function row(i, at) {
    var r = records[i];
    var li = el("li", (i === current ? "fj-current" : "") + (at === selected ? " fj-sel" : ""));
    var a = el("a");
    a.href = fjPermalink.href(r.k);
    a.tabIndex = -1;
    add(a, el("span", "fj-num", "#" + (i + 1)), el("bdi", "fj-title", r.t || r.k));
    flagSpecs.forEach(function (s) { if (r.f && r.f[s.key]) { add(a, el("span", "fj-badge fj-warnb", s.label)); } });
    var x = snippet(r);
    if (x) { add(a, el("span", "fj-snippet", x)); }
    return add(li, a);
  }
  function renderList() {
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (state.page >= pages) { state.page = pages - 1; }
    if (state.page < 0) { state.page = 0; }
    var start = state.page * PAGE, fragment = document.createDocumentFragment();
    view.slice(start, start + PAGE).forEach(function (i, n) { fragment.appendChild(row(i, start + n)); });
    list.textContent = "";
    list.appendChild(fragment);
    var count = $("fj-count");
    count.dataset.count = String(view.length);
    count.textContent = view.length + " of " + records.length + " " + noun;
    $("fj-page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("fj-prev").disabled = state.page === 0;
    $("fj-next").disabled = state.page >= pages - 1;
  }
  function table(s) {
    var wrap = el("div", "fj-scroll"), table = el("table"), head = el("tr");
    s.cols.forEach(function (c) { add(head, el("th", null, c)); });
    add(table, add(el("thead"), head));
    var body = el("tbody");
    (s.cells || []).forEach(function (cells) {
      var tr = el("tr");
      cells.forEach(function (c) { add(tr, el("td", null, c)); });
      add(body, tr);
    });
    return add(wrap, add(table, body));
  }
  function section(s) {
    var box = el("div", "fj-dsec" + (s.c ? " " + s.c : ""));
    if (s.h !== undefined) { add(box, el("h4", null, word(s.h))); }
    if (s.rows) {
      var dl = el("dl", "fj-facts");
      s.rows.forEach(function (r) { add(dl, el("dt", null, word(r[0])), add(el("dd"), el("bdi", null, r[1]))); });
      add(box, dl);
    }
    if (s.fail !== undefined) { add(box, el("p", "fj-failure", s.fail)); }
    if (s.pre !== undefined) { add(box, el("pre", null, s.pre)); }
    if (s.cols) { add(box, table(s)); }
    if (s.two) {
      var two = el("div", "fj-two");
      s.two.forEach(function (p) { add(two, section(p)); });
      add(box, two);
    }
    return box;
  }
  function showDetail(i) {
    var r = records[i], box = $("fj-detail");
    current = i;
    box.textContent = "";
    var link = el("a", null, "permalink");
    link.href = fjPermalink.href(r.k);
    add(box, add(add(el("h3"), el("bdi", null, heading(r)), document.createTextNode(" ")), link));
    (r.d || []).forEach(function (s) { add(box, section(s)); });
    fjPermalink.mark(list, r.k);
  }
  function select(at) {
    if (!view.length) { return; }
    selected = Math.max(0, Math.min(view.length - 1, at));
    var page = Math.floor(selected / PAGE);
    if (page !== state.page) { state.page = page; }
    renderList();
    var li = list.children[selected - state.page * PAGE];
    if (li && li.scrollIntoView) { li.scrollIntoView({ block: "nearest" }); }
  }
  function open(at) {
    if (!view.length) { return; }
    var key = fjPermalink.href(records[view[at]].k);
    if (window.location.hash !== key) { window.location.hash = key; }
    /* drawn now: the hashchange that follows is skipped (permalink.js) */
    fromHash();
  }
  function turn(step) {
    state.page += step;
    selected = Math.max(0, Math.min(view.length - 1, state.page * PAGE));
    renderList();
    if (list.getBoundingClientRect().top < 0) { list.scrollIntoView({ block: "start" }); }
  }
  function setUp() {
    var flagBox = $("fj-flags");
    flagSpecs.forEach(function (s) {
      var n = records.filter(function (r) { return r.f && r.f[s.key]; }).length;
      var input = el("input", "fj-filter");
      input.type = "checkbox";
      input.dataset.filter = s.key;
      input.disabled = n === 0;
      input.addEventListener("change", function () { state.flags[s.key] = input.checked; apply(); });
      var count = el("span", "fj-n", "(" + n + ")");
      count.dataset.for = s.key;
      add(flagBox, add(el("label"), input, document.createTextNode(" " + s.label + " "), count));
    });
    if (!flagSpecs.length) { flagBox.hidden = true; }
    var facetBox = $("fj-facets");
    facetSpecs.forEach(function (s) {
      var counts = new Map();
      records.forEach(function (r) {
        valuesOf(r, s.key).forEach(function (v) { counts.set(v, (counts.get(v) || 0) + 1); });
      });
      var select = el("select", "fj-facet");
      select.dataset.facet = s.key;
      var every = el("option", null, "all");
      every.value = "";
      add(select, every);
      Array.from(counts.keys()).sort(collator.compare).forEach(function (v) {
        var option = el("option", null, (v === NONE ? "(none)" : v) + " (" + counts.get(v) + ")");
        option.value = v;
        option.dataset.count = String(counts.get(v));
        select.appendChild(option);
      });
      select.disabled = counts.size < 2;
      select.addEventListener("change", function () { state.facets[s.key] = select.value; apply(); });
      add(facetBox, add(el("label"), document.createTextNode(s.label + " "), select));
    });
    var sort = $("fj-sort");
    if (sort) { sort.addEventListener("change", function () { state.sort = sort.value; apply(); }); }
    var timer = null;
    $("fj-search").addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () { state.query = $("fj-search").value; apply(); }, 120);
    });
    $("fj-prev").addEventListener("click", function () { turn(-1); });
    $("fj-next").addEventListener("click", function () { turn(1); });
    list.addEventListener("keydown", function (e) {
      if (e.key === "ArrowDown") { select(selected + 1); } else if (e.key === "ArrowUp") { select(selected - 1); }
      else if (e.key === "Enter") { open(selected); } else if (e.key === "ArrowRight") { if (!$("fj-next").disabled) { turn(1); } }
      else if (e.key === "ArrowLeft") { if (!$("fj-prev").disabled) { turn(-1); } } else { return; }
      e.preventDefault();
    });
    list.addEventListener("click", function (e) {
      var li = e.target.closest ? e.target.closest("li") : null;
      if (li) { selected = state.page * PAGE + Array.prototype.indexOf.call(list.children, li); }
    });
  }
  setUp();
  apply();
  fromHash = fjPermalink.follow(byKey, $("fj-detail"), showDetail);
  fromHash();
  document.body.dataset.ready = "1";
}());
