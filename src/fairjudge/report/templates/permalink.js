/* fairjudge pages: the permalink, one copy for every page's explorer. An item's
   address is #item= and its key percent-encoded, so a key may hold any character and
   round-trips exactly. The page's explorer (explorer.js) follows this
   text in the page's one script, which the Content-Security-Policy names by its hash. */
var fjPermalink = (function () {
  "use strict";
  function href(key) { return "#item=" + encodeURIComponent(key); }
  /* Mark the list's row that links to key as the current one, and no other. */
  function mark(list, key) {
    Array.prototype.forEach.call(list.children, function (li) { li.classList.remove("fj-current"); });
    var mine = list.querySelector("a[href=\"#item=" + CSS.escape(encodeURIComponent(key)) + "\"]");
    if (mine) { mine.parentNode.classList.add("fj-current"); }
  }
  /* Open the item the address names, now and on each change of it: show(index) draws
     it in box; a key no item has is said in box, as the address holds it
     (percent-encoded, so a link may carry any character). Returns the opener. */
  function follow(byKey, box, show) {
    var drawn = null;
    function open() {
      drawn = window.location.hash;
      var m = /^#item=(.*)$/.exec(drawn);
      if (!m) { return; }
      var key;
      try { key = decodeURIComponent(m[1]); } catch (e) { return; }
      if (!byKey.has(key)) {
        var note = document.createElement("p"), name = document.createElement("bdi");
        note.className = "fj-warning";
        name.textContent = m[1];
        note.append("No item ", name, " in this report.");
        box.textContent = "";
        box.appendChild(note);
        return;
      }
      show(byKey.get(key));
      var top = box.getBoundingClientRect().top;
      if (top < 0 || top > window.innerHeight) { box.scrollIntoView({ block: "start" }); }
    }
    /* A link to an item draws it at once, in the click itself: hashchange fires only
       after the hash is set, and until then the box would show the previous item. The
       hashchange that follows is then skipped; one from the address bar or from Back
       still draws. */
    window.addEventListener("hashchange", function () { if (window.location.hash !== drawn) { open(); } });
    document.addEventListener("click", function (e) {
      var link = e.target.closest ? e.target.closest("a[href^='#item=']") : null;
      if (!link || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) { return; }
      e.preventDefault();
      window.location.hash = link.getAttribute("href");
      open();
    });
    return open;
  }
  return { href: href, mark: mark, follow: follow };
}());
