// The page of `robograph view`: a run's timeline (frames with detections drawn, the panels its method declares in
// graphs/<id>/viewer.ts — drawn here from that data, knowing no method — and the goal check) or an experiment's tables
// and Chart.js charts. Plain DOM, no build step, nothing from the network: the server serves this file, its style sheet
// and Chart.js from node_modules.
"use strict";

const app = document.getElementById("app");
const crumbs = document.getElementById("crumbs");

/** Builds an element; strings become text nodes (nothing from a record is ever parsed as HTML). */
function element(tag, attrs, ...kids) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const kid of kids.flat(Infinity))
    if (kid !== null && kid !== undefined && kid !== false) el.append(kid instanceof Node ? kid : String(kid));
  return el;
}

const api = async (path) => {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};
const enc = (rel) => rel.split("/").map(encodeURIComponent).join("/");
const fmt = (x, d = 1) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(d) : "–");
const callText = (c) => (c ? `${c.robot}.${c.skill}(${Object.values(c.args || {}).join(", ")})` : "");

function statusBadge(status, success) {
  const cls =
    success === true || status === "succeeded"
      ? "ok"
      : status === "interrupted" || status === "incomplete" || status === "running"
        ? "warn"
        : "bad";
  return element("span", { class: `badge ${cls}`, "data-status": status }, status || "unknown");
}

async function main() {
  const path = decodeURIComponent(location.pathname);
  try {
    if (path.startsWith("/run/")) return await runPage(path.slice(5));
    if (path.startsWith("/experiment/")) return await experimentPage(path.slice(12));
    return await indexPage();
  } catch (err) {
    app.replaceChildren(element("p", { class: "bad" }, String(err.message || err)));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Index

async function indexPage() {
  const x = await api("/api/index");
  document.title = "robograph view";
  app.replaceChildren(
    element("h1", {}, "Runs under ", element("code", {}, x.root)),
    x.runs.length
      ? element(
          "table",
          {},
          element("tr", {}, element("th", {}, "run"), element("th", {}, "scenario"), element("th", {}, "status")),
          x.runs.map((run) =>
            element(
              "tr",
              {},
              element("td", {}, element("a", { href: `/run/${enc(run.rel)}` }, run.id)),
              element("td", {}, run.scenario || ""),
              element("td", {}, statusBadge(run.status, run.success)),
            ),
          ),
        )
      : element("p", { class: "muted" }, "no run records here (npm start leaves one in runs/<thread>/)"),
    element("h2", {}, "Experiments"),
    x.experiments.length
      ? element(
          "ul",
          {},
          x.experiments.map((experiment) =>
            element(
              "li",
              {},
              element("a", { href: `/experiment/${enc(experiment.rel)}` }, experiment.name),
              experiment.method
                ? element("span", { class: "muted" }, ` — ${experiment.methodTitle || experiment.method}`)
                : "",
              experiment.hasReport ? "" : element("span", { class: "muted" }, " (no report.json)"),
            ),
          ),
        )
      : element(
          "p",
          { class: "muted" },
          "none (npm run eval writes them to runs/experiments/<name>/; a curriculum run's report is listed here too)",
        ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Run

/** A path of what a panel shows: `.` the thing itself, else its fields by dots (`plan.steps`, `scene.length`). */
function get(value, path) {
  if (path === ".") return value;
  return path.split(".").reduce((at, key) => (at === undefined || at === null ? undefined : at[key]), value);
}

/** A declared template filled from what is shown (graphs/viewer.ts says its places and formats). */
function fill(template, value) {
  return template.replace(/\{([^}|]+)(?:\|(\w+)(?::([^}]*))?)?\}/g, (_, path, format, arg) => {
    const x = get(value, path);
    if (format === "call") return callText(x);
    if (format === "fixed") return fmt(x, Number(arg));
    if (format === "or") return x ? String(x) : (arg ?? "");
    if (format === "join") return Array.isArray(x) ? x.join(arg) : "";
    return x === undefined || x === null ? "" : String(x);
  });
}

/** Whether a declared test holds of what is shown: a path alone, that it is truthy; else that it is (or is not) a value. */
function holds(test, value) {
  if (typeof test === "string") return !!get(value, test);
  const x = get(value, test.path);
  return "is" in test ? x === test.is : x !== test.isNot;
}

const filled = (x) => !!x && !(Array.isArray(x) && !x.length);

/** Each declared panel's values before any step: what its folds start from. */
function startValues(panel) {
  const values = {};
  const at = {};
  for (const [name, fold] of Object.entries(panel.values)) {
    values[name] = "union" in fold || "append" in fold ? [] : fold.initial;
    at[name] = null;
  }
  return { values, at };
}

/** One step folded into a panel's values (`source`: the step's update with what its method added); `shown`: the step on screen. */
function foldStep(panel, state, source, step, shown) {
  for (const [name, fold] of Object.entries(panel.values)) {
    if ("latest" in fold) {
      if (!(fold.latest in source) || (fold.nonEmpty && !filled(source[fold.latest]))) continue;
      state.values[name] = source[fold.latest];
    } else if ("union" in fold || "append" in fold) {
      const items = source["union" in fold ? fold.union : fold.append];
      if (!Array.isArray(items)) continue;
      state.values[name] =
        "union" in fold ? [...new Set([...state.values[name], ...items])] : [...state.values[name], ...items];
    } else if ("thisStep" in fold) {
      if (!shown) continue;
      state.values[name] = source[fold.thisStep];
    }
    state.at[name] = step.n;
  }
}

/** The run as of step i (0-based): each camera's latest frame, the model usage so far, each panel's values. */
function foldTo(run, i) {
  const st = {
    frames: {},
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
    panels: run.panels.map(startValues),
  };
  for (let k = 0; k <= i && k < run.steps.length; k++) {
    const step = run.steps[k];
    for (const f of step.frames) st.frames[f.camera] = f;
    st.calls += step.usage.calls;
    st.inputTokens += step.usage.inputTokens;
    st.outputTokens += step.usage.outputTokens;
    const source = { ...(step.update || {}), ...step.fields };
    run.panels.forEach((panel, p) => foldStep(panel, st.panels[p], source, step, k === i));
  }
  return st;
}

/** What kind of moment a step is, for the timeline's marks: its method's mark, else how its status ends the run. */
function stepClass(step) {
  const update = step.update || {};
  if (step.mark) return step.mark;
  if (update.status === "succeeded") return "done";
  if (update.status && update.status !== "running") return "failed";
  return "";
}

/** Draws a frame's detections over it: a box and a label per detection, in the detector's pixel frame. */
function drawBoxes(img, canvas, frame) {
  // Drawn at the size the frame is shown, so labels stay legible however small the camera's image is.
  const width = img.clientWidth || img.naturalWidth,
    hgt = img.clientHeight || img.naturalHeight;
  canvas.width = width;
  canvas.height = hgt;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, width, hgt);
  const boxes = frame.boxes || [];
  const sx = width / (frame.width || img.naturalWidth),
    sy = hgt / (frame.height || img.naturalHeight);
  ctx.lineWidth = 2;
  ctx.font = "11px sans-serif";
  ctx.textBaseline = "bottom";
  for (const b of boxes) {
    const x = b.box.x * sx,
      y = b.box.y * sy,
      bw = b.box.w * sx,
      bh = b.box.h * sy;
    ctx.strokeStyle = "#ff2d55";
    ctx.strokeRect(x + 0.5, y + 0.5, Math.max(1, bw - 1), Math.max(1, bh - 1));
    const label = `${b.label}${typeof b.score === "number" ? ` ${b.score.toFixed(2)}` : ""}`;
    const tw = ctx.measureText(label).width + 4;
    const ty = y > 12 ? y : y + bh + 12;
    ctx.fillStyle = "rgba(255,45,85,0.85)";
    ctx.fillRect(x, ty - 12, tw, 12);
    ctx.fillStyle = "#fff";
    ctx.fillText(label, x + 2, ty);
  }
  canvas.dataset.boxes = String(boxes.length);
  canvas.dataset.drawn = "1";
}

function cameraFigure(frame, atStep) {
  const canvas = element("canvas", { class: "boxes", "data-boxes": "0" });
  const img = element("img", {
    class: "frame",
    alt: `${frame.camera} at step ${frame.n}`,
    "data-camera": frame.camera,
  });
  img.addEventListener("load", () => drawBoxes(img, canvas, frame));
  if (frame.src) img.src = frame.src;
  const det =
    frame.boxes === null
      ? "no detections on record for this frame"
      : `${frame.boxes.length} detection${frame.boxes.length === 1 ? "" : "s"}: ${frame.boxes.map((b) => `${b.label}${b.note ? ` (${b.note})` : ""}`).join(", ") || "none"}`;
  return element(
    "figure",
    { class: "camera" },
    element(
      "div",
      { class: "stage" },
      frame.src
        ? img
        : element(
            "div",
            { class: "muted", style: "width:320px;height:240px;line-height:240px;text-align:center" },
            "frame not on disk",
          ),
      canvas,
    ),
    element(
      "figcaption",
      {},
      element("b", {}, frame.camera),
      ` — taken at step ${frame.n}${frame.n === atStep ? " (this step)" : ""}; ${det}`,
      frame.caption ? element("div", { class: "muted" }, frame.caption) : "",
    ),
  );
}

function kv(obj) {
  return element("pre", {}, JSON.stringify(obj, null, 1));
}

function panels(run, st, step) {
  const out = [];
  const update = step.update || {};
  // This step.
  out.push(
    element(
      "div",
      { class: "panel", id: "step-panel" },
      element("h3", {}, `step ${step.n}: ${step.node}`),
      element("div", {}, step.text || element("span", { class: "muted" }, "(no change it reports)")),
      element(
        "div",
        { class: "muted" },
        `${step.t !== null ? `t = ${fmt(step.t / 1000, 2)} s; ` : ""}model calls ${step.usage.calls}, tokens ${step.usage.inputTokens} in / ${step.usage.outputTokens} out (run so far: ${st.calls} calls, ${st.inputTokens}+${st.outputTokens} tokens)`,
      ),
      element("details", {}, element("summary", {}, "the node's update as recorded"), kv(update)),
    ),
  );
  // The method's own panels (graphs/<id>/viewer.ts), as it declares them.
  run.panels.forEach((panel, at) => {
    const state = st.panels[at];
    if (shown(panel, state, step)) out.push(panelElement(panel, state, step));
  });
  return out;
}

function shown(panel, state, step) {
  if ((panel.hiddenAt || []).includes(step.node)) return false;
  return (panel.when || Object.keys(panel.values)).some((path) => !!get(state.values, path));
}

function panelElement(panel, state, step) {
  const ats = Object.values(state.at).filter((n) => n !== null);
  const alert = panel.look === "alert" || (panel.alertIf !== undefined && holds(panel.alertIf, state.values));
  return element(
    "div",
    {
      class: ["panel", panel.look === "diag" ? "diag" : "", alert ? "alert" : ""].filter(Boolean).join(" "),
      id: panel.id,
    },
    element("h3", {}, fill(panel.title, { ...state.values, at: ats.length ? Math.max(...ats) : "" })),
    panel.blocks.map((spec) => block(spec, state.values, step)),
  );
}

/** A line's pieces: text, bold marked good or bad, code. */
function segments(spec, value) {
  if (typeof spec === "string") return [fill(spec, value)];
  return spec.map((piece) => {
    if (typeof piece === "string") return fill(piece, value);
    if ("bold" in piece)
      return element(
        "b",
        { class: piece.good === undefined ? undefined : holds(piece.good, value) ? "ok" : "bad" },
        fill(piece.bold, value),
      );
    return element("code", {}, fill(piece.code, value));
  });
}

function cellClass(column, row) {
  const classes = [
    column.num ? "num" : "",
    column.good === undefined ? "" : holds(column.good, row) ? "ok" : "bad",
    column.bad !== undefined && holds(column.bad, row) ? "bad" : "",
  ].filter(Boolean);
  return classes.length ? classes.join(" ") : undefined;
}

/** One declared block of a panel, drawn from what it shows (`value`: the panel's values, or an item of `each`). */
function block(spec, value, step) {
  if (spec.if !== undefined && !holds(spec.if, value)) return "";
  if ("line" in spec) return element("div", { class: spec.muted ? "muted" : undefined }, segments(spec.line, value));
  if ("list" in spec) {
    const items = get(value, spec.list);
    if (!Array.isArray(items)) return "";
    const cursor = spec.cursor === undefined ? undefined : get(value, spec.cursor);
    return element(
      spec.ordered ? "ol" : "ul",
      {},
      items.map((item, k) =>
        element(
          "li",
          { class: cursor === undefined ? undefined : k === cursor ? "cursor" : k < cursor ? "past" : "" },
          spec.code ? element("code", {}, fill(spec.item, item)) : fill(spec.item, item),
        ),
      ),
    );
  }
  if ("joined" in spec) {
    const items = get(value, spec.joined);
    if (!Array.isArray(items)) return "";
    return element(
      "div",
      { class: spec.muted ? "muted" : undefined },
      items.map((item) => fill(spec.item, item)).join(spec.separator),
    );
  }
  if ("table" in spec)
    return element(
      "table",
      { class: spec.class },
      element(
        "tr",
        {},
        spec.columns.map((column) => element("th", {}, column.head)),
      ),
      (get(value, spec.table) || []).map((row) =>
        element(
          "tr",
          spec.current === undefined ? {} : { class: row[spec.current] === step.n ? "current" : "" },
          spec.columns.map((column) => element("td", { class: cellClass(column, row) }, segments(column.cell, row))),
        ),
      ),
    );
  if ("each" in spec)
    return (get(value, spec.each) || []).map((item) =>
      element(
        "div",
        {},
        spec.blocks.map((inner) => block(inner, item, step)),
      ),
    );
  return "";
}

function goalCheck(run) {
  const record = run.summary || run.result;
  const goal = record && Array.isArray(record.goal) ? record.goal : null;
  const checked = record
    ? typeof record.checked === "boolean"
      ? record.checked
      : typeof record.goalHeld === "boolean"
        ? record.goalHeld
        : null
    : null;
  if (!goal && checked !== null)
    return element(
      "div",
      { class: `panel ${checked ? "" : "alert"}`, id: "goal-panel" },
      element("h3", {}, "final goal check (simulator)"),
      element(
        "div",
        { class: checked ? "ok" : "bad" },
        checked ? "✓ the simulator confirms the goal" : "✗ the simulator finds the goal not met",
      ),
    );
  if (!goal)
    return element(
      "div",
      { class: "panel", id: "goal-panel" },
      element("h3", {}, "final goal check"),
      element(
        "span",
        { class: "muted" },
        run.summary || run.result
          ? "the record has no simulator check (a real robot, or the run could not reach it)"
          : "the run did not finish: no check on record",
      ),
    );
  return element(
    "div",
    { class: `panel ${goal.every((g) => g.holds) ? "" : "alert"}`, id: "goal-panel" },
    element("h3", {}, "final goal check (simulator)"),
    element(
      "ul",
      {},
      goal.map((g) => element("li", { class: g.holds ? "ok" : "bad" }, `${g.holds ? "✓" : "✗"} ${g.literal}`)),
    ),
    record.disagreement ? element("div", { class: "bad" }, record.disagreement) : "",
  );
}

async function runPage(rel) {
  const run = await api(`/api/run/${enc(rel)}`);
  document.title = `run ${run.id} — robograph view`;
  crumbs.replaceChildren(
    " / ",
    ...(run.experiment ? [element("a", { href: `/experiment/${enc(run.experiment)}` }, run.experiment), " / "] : []),
    run.id,
  );
  const record = run.summary || run.result;
  const status = record ? record.status : run.lastCheckpoint ? run.lastCheckpoint.status : "incomplete";
  const head = element(
    "div",
    {},
    element(
      "h1",
      {},
      `Run ${run.id} `,
      statusBadge(record ? record.status : "incomplete", record ? record.success : null),
    ),
    run.goal ? element("div", {}, element("b", {}, "goal: "), run.goal) : "",
    run.reportPage
      ? element(
          "div",
          {},
          element("a", { id: "report-link", href: run.reportPage }, "the run's report: its tables and charts"),
        )
      : "",
    element(
      "div",
      { class: "facts" },
      element("span", {}, `method: ${run.mode || "unknown"}`),
      record
        ? [
            element("span", {}, `variant ${record.variant}`),
            record.model ? element("span", {}, `model ${record.model}`) : "",
            element("span", {}, `steps ${record.steps}`),
            element("span", {}, `replans ${record.replans}`),
            element("span", {}, `model calls ${record.modelCalls}`),
            element("span", {}, `skill time ${record.skillSeconds} s`),
            element("span", {}, `wall ${record.wallSeconds} s`),
            element("span", {}, `${record.status}: ${record.statusReason}`),
          ]
        : element(
            "span",
            {},
            `last checkpoint: ${status || "none"}${run.lastCheckpoint && run.lastCheckpoint.statusReason ? ` (${run.lastCheckpoint.statusReason})` : ""}`,
          ),
    ),
    run.notes.length
      ? element(
          "div",
          { class: "notes", id: "notes" },
          run.notes.map((n) => element("div", {}, n)),
        )
      : "",
  );
  if (!run.steps.length) {
    app.replaceChildren(head, element("p", { class: "muted" }, "No steps on record."), goalCheck(run));
    return;
  }
  const items = run.steps.map((x, k) =>
    element(
      "li",
      { class: stepClass(x), "data-n": x.n, onclick: () => go(k) },
      element("span", { class: "muted" }, x.n),
      element("span", {}, x.node),
      element("span", { class: "what", title: x.text }, x.text),
    ),
  );
  const timeline = element("div", { class: "timeline", tabindex: "0" }, element("ol", {}, items));
  const slider = element("input", { type: "range", min: 1, max: run.steps.length, value: 1, "aria-label": "step" });
  const label = element("span", { id: "step-label" });
  const view = element("div", { id: "step-view" });
  slider.addEventListener("input", () => go(Number(slider.value) - 1));
  const gifs = run.cameras.length
    ? element(
        "div",
        {},
        element("h2", {}, "Each camera over the run (GIF)"),
        element(
          "div",
          { class: "gifs" },
          run.cameras.map((camera) =>
            element(
              "figure",
              { class: "camera" },
              element("img", {
                class: "gif",
                src: `/gif/${enc(rel)}/${encodeURIComponent(camera)}.gif`,
                alt: `${camera} over the run`,
                loading: "lazy",
              }),
              element("figcaption", {}, camera),
            ),
          ),
        ),
      )
    : "";
  const checkpoints = run.checkpoints
    ? element(
        "details",
        { id: "checkpoints" },
        element("summary", {}, `LangGraph checkpoint history: ${run.checkpoints.length} checkpoints`),
        element(
          "table",
          {},
          element(
            "tr",
            {},
            element("th", {}, "step"),
            element("th", {}, "source"),
            element("th", {}, "next"),
            element("th", {}, "status"),
            element("th", {}, "checkpoint id"),
            element("th", {}, "at"),
          ),
          run.checkpoints.map((checkpoint) =>
            element(
              "tr",
              {},
              element("td", { class: "num" }, checkpoint.step),
              element("td", {}, checkpoint.source),
              element("td", {}, checkpoint.next.join(", ")),
              element("td", {}, checkpoint.status || ""),
              element("td", {}, element("code", {}, checkpoint.id)),
              element("td", {}, checkpoint.at || ""),
            ),
          ),
        ),
      )
    : element(
        "p",
        { class: "muted" },
        run.experiment
          ? "Experiment episodes keep no checkpoints (they run with an in-memory checkpointer)."
          : "No checkpoint history for this thread in the data directory.",
      );
  app.replaceChildren(
    head,
    element(
      "div",
      { class: "run" },
      timeline,
      element(
        "div",
        {},
        element(
          "div",
          { class: "stepbar" },
          label,
          slider,
          element(
            "span",
            { class: "muted" },
            element("kbd", {}, "←"),
            element("kbd", {}, "→"),
            " step, ",
            element("kbd", {}, "Home"),
            element("kbd", {}, "End"),
            " ends",
          ),
        ),
        view,
      ),
    ),
    gifs,
    checkpoints,
  );

  let current = -1;
  function go(k) {
    k = Math.max(0, Math.min(run.steps.length - 1, k));
    if (k === current) return;
    current = k;
    const step = run.steps[k];
    const st = foldTo(run, k);
    for (const li of items) li.classList.remove("current");
    items[k].classList.add("current");
    items[k].scrollIntoView({ block: "nearest" });
    slider.value = String(k + 1);
    label.textContent = `step ${step.n} / ${run.steps.length}`;
    label.dataset.n = String(step.n);
    const frames = Object.values(st.frames);
    view.replaceChildren(
      frames.length
        ? element(
            "div",
            { class: "cameras" },
            frames.map((f) => cameraFigure(f, step.n)),
          )
        : element("p", { class: "muted" }, "no frame yet"),
      element("div", { class: "panels" }, panels(run, st, step)),
    );
    history.replaceState(null, "", `#step=${step.n}`);
  }
  document.addEventListener("keydown", (event) => {
    if (event.target instanceof HTMLInputElement && event.target !== slider) return;
    const moves = {
      ArrowRight: current + 1,
      ArrowDown: current + 1,
      ArrowLeft: current - 1,
      ArrowUp: current - 1,
      Home: 0,
      End: run.steps.length - 1,
      PageDown: current + 10,
      PageUp: current - 10,
    };
    if (!(event.key in moves)) return;
    event.preventDefault();
    go(moves[event.key]);
  });
  const match = /step=(\d+)/.exec(location.hash);
  go(match ? Number(match[1]) - 1 : 0);
  app.append(element("h2", {}, "Outcome"), goalCheck(run));
}

// ---------------------------------------------------------------------------------------------------------------
// Experiment

/** report.md's headings, paragraphs and tables as HTML (the tables are laid out as the papers print them). */
function markdownTables(md) {
  const out = [];
  const lines = md.split("\n");
  let skipping = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    // The report's own episode list and frames are replaced by the linked table below.
    if (line.startsWith("## ")) skipping = /^## (Episodes|Frames)\b/.test(line);
    if (skipping) continue;
    if (line.startsWith("|")) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith("|")) rows.push(lines[i++]);
      i--;
      const cells = (row) =>
        row
          .replace(/^\||\|$/g, "")
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, "|"));
      const body = rows.filter((r) => !/^\|[\s|:-]+\|$/.test(r));
      const [headRow, ...rest] = body;
      out.push(
        element(
          "table",
          { class: "paper" },
          element(
            "tr",
            {},
            cells(headRow).map((c) => element("th", {}, c)),
          ),
          rest.map((row) =>
            element(
              "tr",
              {},
              cells(row).map((c) => element("td", { class: /^[\d.%() /–-]+$/.test(c) ? "num" : "" }, c)),
            ),
          ),
        ),
      );
    } else if (line.startsWith("# ")) continue;
    else if (line.startsWith("## ")) out.push(element("h2", {}, line.slice(3)));
    else if (line.startsWith("### ")) out.push(element("h3", {}, line.slice(4)));
    else if (line.trim() && !line.startsWith("![")) out.push(element("p", {}, line.replace(/`/g, "")));
  }
  return out;
}

const charts = [];

function chart(spec) {
  const canvas = element("canvas", { id: spec.id });
  const box = element("div", { class: "chart", "data-chart": spec.id }, canvas);
  queueMicrotask(() => {
    const many = spec.datasets.length > 1;
    const datasets = spec.datasets.map((dataset, k) => ({
      ...dataset,
      backgroundColor:
        many || spec.type === "line"
          ? PALETTE[k % PALETTE.length]
          : spec.labels.map((_, i) => PALETTE[i % PALETTE.length]),
      borderColor: PALETTE[k % PALETTE.length],
      spanGaps: true,
    }));
    const instance = new Chart(canvas, {
      type: spec.type,
      data: { labels: spec.labels, datasets },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        plugins: { title: { display: true, text: spec.title }, legend: { display: many } },
        scales: {
          y: { beginAtZero: true, ...(spec.yMax ? { max: spec.yMax } : {}) },
          ...(spec.x ? { x: { title: { display: true, text: spec.x } } } : {}),
        },
      },
    });
    charts.push(instance);
  });
  return box;
}

const PALETTE = ["#1f5fa8", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#2e4057", "#c17c74"];

/** A cell as report.md prints it: a link's text, or a frame of the record (a curriculum run's cycle images) drawn. */
function cellContent(rel, cell) {
  const img = /^!\[([^\]]*)\]\((frames\/[\w.-]+\.png)\)$/.exec(cell);
  if (img)
    return element("img", {
      class: "cell-frame",
      src: `/file/${enc(rel)}/${img[2]}`,
      alt: img[1] || img[2],
      loading: "lazy",
    });
  return cell.replace(/^\[([^\]]*)\]\([^)]*\)$/, "$1");
}

/** A table of the report, as report.json holds it (the cells report.md prints). */
function paperTable(rel, table) {
  return element(
    "section",
    { class: "paper-table", "data-table": table.id },
    element("h2", {}, table.title),
    table.note ? element("p", { class: "muted" }, table.note.replace(/`/g, "")) : "",
    table.rows.length ? "" : element("p", { class: "muted" }, "(no rows)"),
    element(
      "table",
      { class: "paper" },
      element(
        "tr",
        {},
        table.columns.map((c) => element("th", {}, c)),
      ),
      table.rows.map((row) =>
        element(
          "tr",
          {},
          row.map((c) => element("td", { class: /^[\d.%() /–-]+$/.test(c) ? "num" : "" }, cellContent(rel, c))),
        ),
      ),
    ),
  );
}

async function experimentPage(rel) {
  const x = await api(`/api/experiment/${enc(rel)}`);
  const what = x.what;
  document.title = `${what.toLowerCase()} ${x.name} — robograph view`;
  crumbs.replaceChildren(" / ", x.name);
  const report = x.report;
  const parts = [
    element(
      "h1",
      { "data-method": x.method || "" },
      `${what} ${x.name}`,
      x.method ? element("span", { class: "badge method" }, x.methodTitle) : "",
    ),
  ];
  if (x.facts.length)
    parts.push(
      element(
        "div",
        { class: "facts", id: "facts" },
        x.facts.map((f) => element("span", {}, f)),
      ),
    );
  if (x.reportError)
    parts.push(
      element(
        "div",
        { class: "notes bad", id: "report-error" },
        element("b", {}, "This report cannot be shown as its method's tables: "),
        x.reportError,
      ),
    );
  if (x.notes.length)
    parts.push(
      element(
        "div",
        { class: "notes" },
        x.notes.map((n) => element("div", {}, n)),
      ),
    );
  if (x.timeline)
    parts.push(
      element("p", {}, element("a", { href: `/run/${enc(rel)}` }, "the run's timeline (every node's update)")),
    );
  if (x.charts.length)
    parts.push(element("h2", {}, "Charts"), element("div", { class: "charts" }, x.charts.map(chart)));
  // The runner's episodes are the linked list below; a verdicts table with nothing counted says nothing.
  const shown = report
    ? report.tables.filter(
        (table) =>
          !(table.id === "episodes" && x.runner) &&
          !(table.id === "verdicts" && table.rows.every((row) => row.slice(1).every((c) => c === "0"))),
      )
    : [];
  if (report)
    parts.push(
      element(
        "div",
        { id: "tables" },
        shown.map((t) => paperTable(rel, t)),
      ),
    );
  else if (x.markdown) parts.push(element("div", { id: "tables" }, markdownTables(x.markdown)));
  if (x.runner) {
    parts.push(
      element("h2", {}, "Episodes"),
      element(
        "table",
        { id: "episodes" },
        element(
          "tr",
          {},
          [
            "episode",
            "variant",
            "task",
            "seed",
            "status",
            "success",
            "steps",
            "replans",
            "model calls",
            "skill s",
            "wall s",
          ].map((c) => element("th", {}, c)),
        ),
        x.episodes.map((episode) =>
          element(
            "tr",
            {},
            element(
              "td",
              {},
              episode.href ? element("a", { href: episode.href, class: "episode" }, episode.id) : episode.id,
            ),
            element("td", {}, episode.variant || ""),
            element("td", {}, episode.task || ""),
            element("td", { class: "num" }, episode.seed ?? ""),
            element(
              "td",
              {},
              episode.status
                ? statusBadge(episode.status, episode.success)
                : element("span", { class: "muted" }, episode.recorded ? "no result (interrupted?)" : ""),
            ),
            element("td", {}, episode.success === true ? "yes" : episode.success === false ? "no" : ""),
            element("td", { class: "num" }, episode.steps ?? ""),
            element("td", { class: "num" }, episode.replans ?? ""),
            element("td", { class: "num" }, episode.modelCalls ?? ""),
            element("td", { class: "num" }, fmt(episode.skillSeconds, 1)),
            element("td", { class: "num" }, fmt(episode.wallSeconds, 2)),
          ),
        ),
      ),
    );
  }
  app.replaceChildren(...parts);
}

window.robographCharts = charts;
main();
