"use strict";
// The labelling page. Every text from the file is put in with textContent only: an
// answer is untrusted and is never parsed as HTML. The server maps left/right back to
// model 1/model 2 and writes the file before it replies; the page only ever knows sides.
(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("fj-main");
  let items = [];
  let labels = [];
  let index = 0;
  let busy = false;
  const undo = []; // [index, side before] of each label given in this session

  function status(text, error) {
    const el = $("fj-status");
    el.textContent = text;
    el.className = error ? "error" : "";
  }

  function done() {
    return labels.filter((l) => l !== null).length;
  }

  function question(q) {
    const box = $("fj-question");
    box.replaceChildren();
    if (typeof q === "string") {
      box.textContent = q;
      return;
    }
    for (const [role, content] of q) {
      const turn = document.createElement("div");
      turn.className = "turn";
      const who = document.createElement("span");
      who.className = "role";
      who.textContent = role + ":";
      turn.append(who, document.createTextNode(content));
      box.append(turn);
    }
  }

  function draw() {
    const item = items[index];
    const label = labels[index];
    main.dataset.index = String(index);
    main.dataset.label = label === null ? "" : label;
    $("fj-where").textContent = "Item " + (index + 1) + " of " + items.length +
      (label === null ? ", not labelled yet" : ", labelled");
    question(item.question);
    $("fj-left").textContent = item.left;
    $("fj-right").textContent = item.right;
    $("fj-left-box").classList.toggle("chosen", label === "left");
    $("fj-right-box").classList.toggle("chosen", label === "right");
    for (const side of ["left", "tie", "right"]) {
      $("fj-pick-" + side).setAttribute("aria-pressed", String(label === side));
    }
    const n = done();
    $("fj-progress-text").textContent = n + " / " + items.length + " labelled";
    $("fj-bar").style.width = (items.length ? (100 * n) / items.length : 0) + "%";
    $("fj-progress").setAttribute("aria-valuenow", String(n));
    $("fj-progress").setAttribute("aria-valuemax", String(items.length));
    document.body.dataset.done = String(n);
    document.body.dataset.complete = n === items.length ? "1" : "0";
  }

  function nextOpen(from) {
    for (let k = 1; k <= items.length; k++) {
      const i = (from + k) % items.length;
      if (labels[i] === null) return i;
    }
    return from;
  }

  async function send(i, side) {
    const reply = await fetch("api/label", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ index: i, side: side }),
      cache: "no-store",
    });
    const body = await reply.json();
    if (!reply.ok) throw new Error(body.error || "HTTP " + reply.status);
    labels[i] = side;
  }

  async function act(work) {
    if (busy || !items.length) return;
    busy = true;
    document.body.dataset.busy = "1";
    try {
      await work();
    } catch (err) {
      status("Not saved: " + err.message + ". Is `fairjudge label` still running?", true);
    } finally {
      busy = false;
      document.body.dataset.busy = "0";
      draw();
    }
  }

  function pick(side) {
    return act(async () => {
      const before = labels[index];
      await send(index, side);
      undo.push([index, before]);
      status("Saved item " + (index + 1) + ".", false);
      index = nextOpen(index);
    });
  }

  function back() {
    return act(async () => {
      const last = undo.pop();
      if (!last) {
        status("Nothing to undo in this session; go to an item and label it again.", false);
        return;
      }
      await send(last[0], last[1]).catch((err) => { undo.push(last); throw err; });
      index = last[0];
      status("Undone: item " + (index + 1) + " is " +
        (last[1] === null ? "not labelled" : "back to " + last[1]) + ".", false);
    });
  }

  function go(step) {
    if (busy || !items.length) return;
    index = (index + step + items.length) % items.length;
    status("", false);
    draw();
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const actions = {
      "1": () => pick("left"), "2": () => pick("right"), t: () => pick("tie"),
      T: () => pick("tie"), u: back, U: back, Backspace: back,
      ArrowLeft: () => go(-1), ArrowRight: () => go(1),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  });
  $("fj-pick-left").addEventListener("click", () => pick("left"));
  $("fj-pick-right").addEventListener("click", () => pick("right"));
  $("fj-pick-tie").addEventListener("click", () => pick("tie"));
  $("fj-undo").addEventListener("click", back);
  $("fj-prev").addEventListener("click", () => go(-1));
  $("fj-next").addEventListener("click", () => go(1));

  fetch("api/state", { cache: "no-store" })
    .then((reply) => reply.json())
    .then((state) => {
      items = state.items;
      labels = state.labels;
      $("fj-file").textContent = state.file + " (order seed " + state.seed + ")";
      index = labels.indexOf(null);
      if (index < 0) index = 0;
      if (done()) status("Resumed: " + done() + " items were already labelled.", false);
      draw();
      document.body.dataset.ready = "1";
    })
    .catch((err) => {
      status("Could not load the items: " + err.message, true);
      document.body.dataset.ready = "1";
    });
})();
