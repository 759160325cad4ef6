"use strict";
// The labelling page. Every text from the file is put in with textContent only: an
// answer is untrusted and is never parsed as HTML. The server maps what the page
// posts (a side, or a score by shown position) back to the file and writes it before
// it replies; the page never knows which system wrote what.
(function () {
  const $ = (id) => document.getElementById(id);
  const main = $("fj-main");
  let state = null; // the server's state: kind "pairs" or "scores"
  let index = 0;
  let focus = 0; // scores: the dimension a number key scores
  let busy = false;
  const undo = []; // what each post of this session replaced, newest last

  function status(text, error) {
    const el = $("fj-status");
    el.textContent = text;
    el.className = error ? "error" : "";
  }

  const pairs = {
    complete: (i) => state.labels[i] !== null,
    draw(item) {
      const label = state.labels[index];
      main.dataset.label = label === null ? "" : label;
      $("fj-left").textContent = item.left;
      $("fj-right").textContent = item.right;
      $("fj-left-box").classList.toggle("chosen", label === "left");
      $("fj-right-box").classList.toggle("chosen", label === "right");
      for (const side of ["left", "tie", "right"]) {
        $("fj-pick-" + side).setAttribute("aria-pressed", String(label === side));
      }
    },
  };

  const scores = {
    complete: (i) => state.dimensions.every((d) => d.name in state.scores[i]),
    levels() {
      const out = [];
      for (let v = state.scale[0]; v <= state.scale[1]; v++) out.push(v);
      return out;
    },
    draw(item) {
      $("fj-answer").textContent = item.answer;
      const given = state.scores[index];
      main.dataset.label = state.dimensions.map((d) => d.name + "=" + (given[d.name] ?? "")).join(",");
      const list = $("fj-dims");
      list.replaceChildren();
      state.dimensions.forEach((dim, k) => {
        const row = document.createElement("li");
        row.className = "dim" + (k === focus ? " focus" : "");
        row.dataset.dimension = dim.name;
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = dim.name;
        const about = document.createElement("span");
        about.className = "about";
        about.textContent = dim.description;
        const levels = document.createElement("span");
        levels.className = "levels";
        for (const v of scores.levels()) {
          const button = document.createElement("button");
          button.type = "button";
          button.textContent = String(v);
          button.setAttribute("aria-pressed", String(given[dim.name] === v));
          button.addEventListener("click", () => { focus = k; score(v); });
          levels.append(button);
        }
        const ends = document.createElement("span");
        ends.className = "ends";
        ends.textContent = [dim.low && state.scale[0] + ": " + dim.low,
          dim.high && state.scale[1] + ": " + dim.high].filter(Boolean).join("  ·  ");
        row.append(name, about, levels, ends);
        list.append(row);
      });
    },
  };

  function mode() {
    return state.kind === "scores" ? scores : pairs;
  }

  function done() {
    let n = 0;
    for (let i = 0; i < state.items.length; i++) if (mode().complete(i)) n++;
    return n;
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
    const item = state.items[index];
    const total = state.items.length;
    main.dataset.index = String(index);
    main.dataset.focus = String(focus);
    $("fj-where").textContent = "Item " + (index + 1) + " of " + total +
      (mode().complete(index) ? ", labelled" : ", not labelled yet");
    question(item.question);
    mode().draw(item);
    const n = done();
    $("fj-progress-text").textContent = n + " / " + total + " labelled";
    $("fj-bar").style.width = (total ? (100 * n) / total : 0) + "%";
    $("fj-progress").setAttribute("aria-valuenow", String(n));
    $("fj-progress").setAttribute("aria-valuemax", String(total));
    document.body.dataset.done = String(n);
    document.body.dataset.complete = n === total ? "1" : "0";
  }

  function nextOpen(from) {
    for (let k = 1; k <= state.items.length; k++) {
      const i = (from + k) % state.items.length;
      if (!mode().complete(i)) return i;
    }
    return from;
  }

  function firstOpenDimension() {
    const k = state.dimensions.findIndex((d) => !(d.name in state.scores[index]));
    return k < 0 ? 0 : k;
  }

  async function post(body) {
    const reply = await fetch("api/label", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      cache: "no-store",
    });
    const answer = await reply.json();
    if (!reply.ok) throw new Error(answer.error || "HTTP " + reply.status);
  }

  // Post one change, then apply it here: the page shows only what the server saved.
  async function send(change) {
    if (change.dimension === undefined) {
      await post({ index: change.index, side: change.value });
      state.labels[change.index] = change.value;
    } else {
      await post({ index: change.index, dimension: change.dimension, score: change.value });
      if (change.value === null) delete state.scores[change.index][change.dimension];
      else state.scores[change.index][change.dimension] = change.value;
    }
  }

  async function act(work) {
    if (busy || !state || !state.items.length) return;
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
      const before = state.labels[index];
      await send({ index, value: side });
      undo.push({ index, value: before });
      status("Saved item " + (index + 1) + ".", false);
      index = nextOpen(index);
    });
  }

  function score(value) {
    return act(async () => {
      const dimension = state.dimensions[focus].name;
      const before = state.scores[index][dimension];
      await send({ index, dimension, value });
      undo.push({ index, dimension, value: before === undefined ? null : before, focus });
      status("Saved " + dimension + " = " + value + " for item " + (index + 1) + ".", false);
      if (scores.complete(index)) {
        index = nextOpen(index);
        focus = firstOpenDimension();
      } else {
        focus = firstOpenDimension();
      }
    });
  }

  function back() {
    return act(async () => {
      const last = undo.pop();
      if (!last) {
        status("Nothing to undo in this session; go to an item and label it again.", false);
        return;
      }
      await send(last).catch((err) => { undo.push(last); throw err; });
      index = last.index;
      if (last.focus !== undefined) focus = last.focus;
      status("Undone: item " + (index + 1) + (last.value === null ? " is not labelled" :
        " is back to " + last.value) + (last.dimension ? " on " + last.dimension : "") + ".", false);
    });
  }

  function go(step) {
    if (busy || !state || !state.items.length) return;
    index = (index + step + state.items.length) % state.items.length;
    if (state.kind === "scores") focus = firstOpenDimension();
    status("", false);
    draw();
  }

  function move(step) {
    if (busy || !state || state.kind !== "scores") return;
    focus = (focus + step + state.dimensions.length) % state.dimensions.length;
    draw();
  }

  function numberKey(key) {
    if (!/^[0-9]$/.test(key)) return null;
    const value = key === "0" && state.scale[1] === 10 ? 10 : Number(key);
    return value >= state.scale[0] && value <= state.scale[1] ? value : null;
  }

  function action(key) {
    const common = { u: back, U: back, Backspace: back, ArrowLeft: () => go(-1),
      ArrowRight: () => go(1) };
    if (common[key]) return common[key];
    if (!state) return null;
    if (state.kind === "scores") {
      if (key === "ArrowUp") return () => move(-1);
      if (key === "ArrowDown") return () => move(1);
      const value = numberKey(key);
      return value === null ? null : () => score(value);
    }
    const sides = { "1": "left", "2": "right", t: "tie", T: "tie" };
    return sides[key] ? () => pick(sides[key]) : null;
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const run = action(event.key);
    if (run) {
      event.preventDefault();
      run();
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
    .then((loaded) => {
      state = loaded;
      document.body.dataset.kind = state.kind;
      $("fj-file").textContent = state.file + " (order seed " + state.seed + ")";
      index = 0;
      while (index < state.items.length && mode().complete(index)) index++;
      if (index === state.items.length) index = 0; // all labelled: start at the top
      if (state.kind === "scores") focus = firstOpenDimension();
      $("fj-zero").hidden = !(state.kind === "scores" && state.scale[1] === 10);
      const n = done();
      if (n) status("Resumed: " + n + " items were already labelled.", false);
      draw();
      document.body.dataset.ready = "1";
    })
    .catch((err) => {
      status("Could not load the items: " + err.message, true);
      document.body.dataset.ready = "1";
    });
})();
