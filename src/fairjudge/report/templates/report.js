/* fairjudge report: the item explorer. The items arrive as JSON in the
   application/json block #fj-items, which the browser never runs; every string from them reaches
   the page through textContent (never innerHTML), so an answer that holds markup
   shows as text. Their hidden characters (bidi overrides, zero-width characters) were
   made visible before the page was written (a right-to-left override reads "U+202E" in
   angle brackets), and a name or id set inside a sentence goes in a <bdi>, so
   right-to-left text in it cannot reorder the words around it. Only one page of rows exists in the DOM at a time, so 10,000 items
   stay smooth. */
(function () {
  "use strict";
  var holder = document.getElementById("fj-items");
  var list = document.getElementById("fj-list");
  if (!holder || !list) { document.body.dataset.ready = "1"; return; }
  var items = JSON.parse(holder.textContent).items;
  var PAGE = 50;
  var FLAG_NAMES = ["inconsistent", "parse", "error", "disagrees"];
  var NO_CATEGORY = "\u0000none";
  var state = { filters: {}, category: "", query: "", sort: "input", page: 0 };
  var view = [];
  var current = -1;
  var haystack = null;
  var byKey = new Map();
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      if (arguments[i]) { parent.appendChild(arguments[i]); }
    }
    return parent;
  }
  /* A sentence with untrusted parts: strings are our words, {t: text} an isolated part. */
  function phrase(tag, cls, parts) {
    var node = el(tag, cls);
    parts.forEach(function (p) {
      node.appendChild(typeof p === "string" ? document.createTextNode(p) : el("bdi", null, p.t));
    });
    return node;
  }
  function anyCall(it, type) {
    for (var i = 0; i < it.calls.length; i++) { if (it.calls[i].ft === type) { return true; } }
    return false;
  }
  function flagsOf(it) {
    return {
      inconsistent: it.cons === false,
      parse: anyCall(it, "parse"),
      error: anyCall(it, "error"),
      disagrees: it.h !== undefined && it.out !== undefined && it.h !== it.out
    };
  }
  var flags = items.map(flagsOf);
  items.forEach(function (it, i) { byKey.set(it.k, i); });

  function questionText(q) {
    if (typeof q === "string") { return q; }
    return q.map(function (t) { return "[" + t[0] + "] " + t[1]; }).join("\n");
  }
  function searchText(i) {
    if (haystack === null) {
      haystack = items.map(function (it) {
        var raws = it.calls.map(function (c) { return (c.raw || "") + "\n" + (c.f || ""); });
        return [it.id || "", it.cat || "", questionText(it.q), it.a1, it.a2, raws.join("\n")]
          .join("\n").toLowerCase();
      });
    }
    return haystack[i];
  }
  function outcomeParts(out, it) {
    if (out === "1") { return [it && it.m1 !== undefined ? { t: it.m1 } : "model 1", " better"]; }
    if (out === "2") { return [it && it.m2 !== undefined ? { t: it.m2 } : "model 2", " better"]; }
    return [out === "tie" ? "tie" : "unresolved"];
  }
  function humanText(h) {
    return h === "1" ? "model 1" : h === "2" ? "model 2" : h === "tie" ? "tie" : "none";
  }

  function matches(i, active, query) {
    var f = flags[i];
    for (var a = 0; a < active.length; a++) { if (!f[active[a]]) { return false; } }
    if (state.category) {
      var cat = items[i].cat === undefined ? NO_CATEGORY : items[i].cat;
      if (cat !== state.category) { return false; }
    }
    return !query || searchText(i).indexOf(query) >= 0;
  }
  function sortView(order) {
    var s = state.sort;
    if (s === "id") {
      order.sort(function (a, b) { return collator.compare(items[a].id || "", items[b].id || "") || a - b; });
    } else if (s === "score-asc" || s === "score-desc") {
      var sign = s === "score-asc" ? 1 : -1;
      order.sort(function (a, b) {
        var x = items[a].sc, y = items[b].sc;
        if (x === undefined || y === undefined) {
          return (x === undefined) - (y === undefined) || a - b;
        }
        return sign * (x - y) || a - b;
      });
    }
    return order;
  }
  function apply() {
    var active = FLAG_NAMES.filter(function (name) { return state.filters[name]; });
    var query = state.query.trim().toLowerCase();
    var order = [];
    for (var i = 0; i < items.length; i++) { if (matches(i, active, query)) { order.push(i); } }
    view = sortView(order);
    state.page = 0;
    renderList();
  }

  function badge(text, cls) { return el("span", "fj-badge" + (cls ? " " + cls : ""), text); }
  function row(i) {
    var it = items[i], f = flags[i];
    var li = el("li", i === current ? "fj-current" : "");
    var a = el("a");
    a.href = fjPermalink.href(it.k);
    add(a, el("span", "fj-num", "#" + (i + 1)), el("bdi", "fj-id", it.id || ""),
      phrase("span", "fj-badge" + (it.out === undefined ? " fj-bad" : ""), outcomeParts(it.out, it)));
    if (f.inconsistent) { add(a, badge("inconsistent", "fj-warnb")); }
    if (f.parse) { add(a, badge("parse failure", "fj-bad")); }
    if (f.error) { add(a, badge("call error", "fj-bad")); }
    if (f.disagrees) { add(a, badge("\u2260 human", "fj-warnb")); }
    if (it.cat !== undefined) { add(a, badge(it.cat)); }
    add(a, el("span", "fj-snippet", questionText(it.q).slice(0, 160)));
    return add(li, a);
  }
  function renderList() {
    var pages = Math.max(1, Math.ceil(view.length / PAGE));
    if (state.page >= pages) { state.page = pages - 1; }
    var start = state.page * PAGE;
    var fragment = document.createDocumentFragment();
    view.slice(start, start + PAGE).forEach(function (i) { fragment.appendChild(row(i)); });
    list.textContent = "";
    list.appendChild(fragment);
    var count = $("fj-count");
    count.dataset.count = String(view.length);
    count.textContent = view.length + " of " + items.length + " items";
    $("fj-page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("fj-prev").disabled = state.page === 0;
    $("fj-next").disabled = state.page >= pages - 1;
  }

  function position(v, o) {
    if (v === "tie") { return "a tie"; }
    var first = v === "A";
    var answer = (o === "original") === first ? "answer 1" : "answer 2";
    return answer + ", shown " + (first ? "first" : "second");
  }
  function bars(pr, o) {
    var box = el("div", "fj-bars");
    var names = o === "original" ? ["A (answer 1)", "B (answer 2)", "tie"] : ["A (answer 2)", "B (answer 1)", "tie"];
    for (var i = 0; i < 3; i++) {
      var track = el("div", "fj-track");
      var fill = el("div", "fj-fill");
      fill.style.width = Math.max(0, Math.min(1, pr[i])) * 100 + "%";
      track.setAttribute("role", "img");
      track.setAttribute("aria-label", names[i] + " " + pr[i].toFixed(3));
      add(box, el("span", null, names[i]), add(track, fill), el("span", null, pr[i].toFixed(3)));
    }
    return box;
  }
  function callCard(c, n, it) {
    var box = el("div", "fj-call");
    var head = "Call " + n + " \u00b7 " + c.o + " order" + (c.s ? " \u00b7 sample " + c.s : "") + (c.c ? " \u00b7 cached" : "");
    add(box, el("h5", null, head));
    if (c.ft) {
      add(box, el("p", "fj-failure", (c.ft === "parse" ? "Parse failure: " : "Call error: ") + c.f));
    } else if (c.v !== undefined) {
      add(box, phrase("p", null, ["Verdict " + c.v + " (" + position(c.v, c.o) + ") \u2192 "].concat(outcomeParts(c.p, it))));
    }
    if (c.pr) { add(box, bars(c.pr, c.o)); }
    add(box, el("pre", "fj-raw", c.raw === undefined ? "(no reply)" : c.raw));
    return box;
  }
  function text(title, body) {
    var wrap = el("div");
    return add(wrap, phrase("h4", null, title), el("pre", null, body));
  }
  function question(q) {
    var wrap = add(el("div"), el("h4", null, typeof q === "string" ? "Question" : "Conversation (" + q.length + " turns)"));
    if (typeof q === "string") { return add(wrap, el("pre", null, q)); }
    q.forEach(function (t) { add(wrap, el("p", "fj-turn-role", t[0]), el("pre", null, t[1])); });
    return wrap;
  }
  function showDetail(i) {
    var it = items[i], box = $("fj-detail");
    current = i;
    box.textContent = "";
    var link = el("a", null, "permalink");
    link.href = fjPermalink.href(it.k);
    add(box, add(phrase("h3", null, ["Item ", it.id !== undefined ? { t: it.id } : "#" + (i + 1), " "]), link));
    var facts = el("dl", "fj-facts");
    var rows = [["outcome", outcomeParts(it.out, it)], ["model 1's score", it.sc === undefined ? "none (unresolved)" : it.sc.toFixed(3)],
      ["consistent", it.cons === undefined ? "unknown (unresolved)" : it.cons ? "yes" : "no"], ["human label", humanText(it.h)]];
    if (it.hs !== undefined) { rows.push(["human score", String(it.hs)]); }
    if (it.cat !== undefined) { rows.push(["category", it.cat]); }
    if (it.m1 !== undefined || it.m2 !== undefined) { rows.push(["models", ["1: ", { t: it.m1 || "?" }, ", 2: ", { t: it.m2 || "?" }]]); }
    rows.forEach(function (r) {
      add(facts, el("dt", null, r[0]), Array.isArray(r[1]) ? phrase("dd", null, r[1]) : el("dd", null, r[1]));
    });
    add(box, facts, question(it.q));
    add(box, add(el("div", "fj-two"),
      text(it.m1 ? ["Answer 1 (", { t: it.m1 }, ")"] : ["Answer 1 (model 1)"], it.a1),
      text(it.m2 ? ["Answer 2 (", { t: it.m2 }, ")"] : ["Answer 2 (model 2)"], it.a2)));
    var original = add(el("div"), el("h4", null, "Original order: A = answer 1, B = answer 2"));
    var swapped = add(el("div"), el("h4", null, "Swapped order: A = answer 2, B = answer 1"));
    it.calls.forEach(function (c, n) { add(c.o === "original" ? original : swapped, callCard(c, n + 1, it)); });
    add(box, add(el("div", "fj-two"), original, swapped));
    fjPermalink.mark(list, it.k);
  }

  function setUp() {
    FLAG_NAMES.forEach(function (name) {
      var n = flags.filter(function (f) { return f[name]; }).length;
      var label = document.querySelector(".fj-n[data-for=\"" + name + "\"]");
      if (label) { label.textContent = "(" + n + ")"; }
      var box = document.querySelector(".fj-filter[data-filter=\"" + name + "\"]");
      if (box) {
        box.disabled = n === 0;
        box.addEventListener("change", function () { state.filters[name] = box.checked; apply(); });
      }
    });
    var counts = new Map();
    items.forEach(function (it) {
      var cat = it.cat === undefined ? NO_CATEGORY : it.cat;
      counts.set(cat, (counts.get(cat) || 0) + 1);
    });
    var select = $("fj-category");
    Array.from(counts.keys()).sort(collator.compare).forEach(function (cat) {
      var option = el("option", null, (cat === NO_CATEGORY ? "(none)" : cat) + " (" + counts.get(cat) + ")");
      option.value = cat;
      select.appendChild(option);
    });
    select.disabled = counts.size < 2;
    select.addEventListener("change", function () { state.category = select.value; apply(); });
    $("fj-sort").addEventListener("change", function () { state.sort = $("fj-sort").value; apply(); });
    var timer = null;
    $("fj-search").addEventListener("input", function () {
      window.clearTimeout(timer);
      timer = window.setTimeout(function () { state.query = $("fj-search").value; apply(); }, 120);
    });
    function turn(step) {
      state.page += step;
      renderList();
      if (list.getBoundingClientRect().top < 0) { list.scrollIntoView({ block: "start" }); }
    }
    $("fj-prev").addEventListener("click", function () { turn(-1); });
    $("fj-next").addEventListener("click", function () { turn(1); });
  }

  setUp();
  apply();
  fjPermalink.follow(byKey, $("fj-detail"), showDetail)();
  document.body.dataset.ready = "1";
}());
