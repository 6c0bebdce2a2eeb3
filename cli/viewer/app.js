// The page of `robograph view`: a run's timeline (frames with detections drawn, belief, plan, verdicts, diagnoses,
// skill results, reward terms, goal check) or an experiment's tables and Chart.js charts. Plain DOM, no build step,
// nothing from the network: the server serves this file, its style sheet and Chart.js from node_modules.
"use strict";

const app = document.getElementById("app");
const crumbs = document.getElementById("crumbs");

/** Builds an element; strings become text nodes (nothing from a record is ever parsed as HTML). */
function h(tag, attrs, ...kids) {
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
  const r = await fetch(path);
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
};
const enc = (rel) => rel.split("/").map(encodeURIComponent).join("/");
const fmt = (x, d = 1) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(d) : "–");
const pct = (x) => (typeof x === "number" ? `${Math.round(x * 100)}%` : "–");
const callText = (c) => (c ? `${c.robot}.${c.skill}(${Object.values(c.args || {}).join(", ")})` : "");

function statusBadge(status, success) {
  const cls =
    success === true || status === "succeeded"
      ? "ok"
      : status === "interrupted" || status === "incomplete" || status === "running"
        ? "warn"
        : "bad";
  return h("span", { class: `badge ${cls}`, "data-status": status }, status || "unknown");
}

async function main() {
  const path = decodeURIComponent(location.pathname);
  try {
    if (path.startsWith("/run/")) return await runPage(path.slice(5));
    if (path.startsWith("/experiment/")) return await experimentPage(path.slice(12));
    return await indexPage();
  } catch (err) {
    app.replaceChildren(h("p", { class: "bad" }, String(err.message || err)));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Index

async function indexPage() {
  const x = await api("/api/index");
  document.title = "robograph view";
  app.replaceChildren(
    h("h1", {}, "Runs under ", h("code", {}, x.root)),
    x.runs.length
      ? h(
          "table",
          {},
          h("tr", {}, h("th", {}, "run"), h("th", {}, "scenario"), h("th", {}, "status")),
          x.runs.map((r) =>
            h(
              "tr",
              {},
              h("td", {}, h("a", { href: `/run/${enc(r.rel)}` }, r.id)),
              h("td", {}, r.scenario || ""),
              h("td", {}, statusBadge(r.status, r.success)),
            ),
          ),
        )
      : h("p", { class: "muted" }, "no run records here (npm start leaves one in runs/<thread>/)"),
    h("h2", {}, "Experiments"),
    x.experiments.length
      ? h(
          "ul",
          {},
          x.experiments.map((e) =>
            h(
              "li",
              {},
              h("a", { href: `/experiment/${enc(e.rel)}` }, e.name),
              e.method ? h("span", { class: "muted" }, ` — ${e.methodTitle || e.method}`) : "",
              e.hasReport ? "" : h("span", { class: "muted" }, " (no report.json)"),
            ),
          ),
        )
      : h(
          "p",
          { class: "muted" },
          "none (npm run eval writes them to runs/experiments/<name>/; a curriculum run's report is listed here too)",
        ),
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Run

/** The run's state as of step i (0-based), folded from the node updates before it. */
function foldTo(run, i) {
  const st = {
    frames: {},
    belief: null,
    plan: null,
    cursor: 0,
    critique: null,
    critiqueAt: null,
    lastFailure: null,
    motion: null,
    scene: [],
    facts: [],
    answers: [],
    explanations: [],
    reasons: [],
    diagnosisAt: null,
    status: null,
    statusReason: null,
    results: [],
    skillSeconds: 0,
    vlmpcPlan: null,
    answer: null,
    calls: 0,
    inputTokens: 0,
    outputTokens: 0,
  };
  for (let k = 0; k <= i && k < run.steps.length; k++) {
    const s = run.steps[k];
    const u = s.update || {};
    for (const f of s.frames) st.frames[f.camera] = f;
    st.calls += s.usage.calls;
    st.inputTokens += s.usage.inputTokens;
    st.outputTokens += s.usage.outputTokens;
    if ("belief" in u) st.belief = u.belief;
    if ("plan" in u) {
      if (Array.isArray(u.plan)) st.vlmpcPlan = u.plan;
      else st.plan = u.plan;
    }
    if ("cursor" in u) st.cursor = u.cursor;
    if ("critique" in u && u.critique) {
      st.critique = u.critique;
      st.critiqueAt = s.n;
    }
    if ("lastFailure" in u) st.lastFailure = u.lastFailure;
    if ("motion" in u) st.motion = u.motion;
    if ("scene" in u) st.scene = u.scene;
    if (Array.isArray(u.facts)) st.facts = [...new Set([...st.facts, ...u.facts])];
    if ("answers" in u) st.answers = u.answers;
    if (Array.isArray(u.explanations) && u.explanations.length) {
      st.explanations = u.explanations;
      st.diagnosisAt = s.n;
    }
    if ("status" in u) {
      st.status = u.status;
      st.statusReason = u.statusReason;
    }
    const before = st.skillSeconds;
    if (u.counters && typeof u.counters.skillSeconds === "number") st.skillSeconds = u.counters.skillSeconds;
    // Skill results: CLEA's executor, RePLan's motions, VLM-PC's skills.
    if (s.node === "executor") {
      const e = Array.isArray(u.history) ? u.history.find((x) => x.kind === "action") : null;
      if (e)
        st.results.push({
          n: s.n,
          what: callText(e.call),
          ok: e.ok,
          message: e.message,
          seconds: st.skillSeconds - before,
        });
      for (const m of (u.log || []).filter((x) => x.kind === "motion"))
        st.results.push({
          n: s.n,
          what: m.step,
          ok: m.ok,
          message: m.message,
          seconds: m.seconds,
          terms: m.terms,
          motionIndex: st.results.filter((r) => r.terms).length,
        });
      const w = u.steps && !Array.isArray(u.steps) ? u.steps.result : null;
      if (w)
        st.results.push({
          n: s.n,
          what: `${w.skill} ${w.magnitude}`,
          ok: !w.stalled,
          message: `moved ${fmt(w.moved, 2)} m, turned ${Math.round(w.turned)}°${w.stalled ? ", stalled" : ""}`,
          seconds: w.seconds,
        });
    }
    for (const d of (u.log || []).filter((x) => x.kind === "diagnosis")) {
      st.reasons = d.reasons;
      st.diagnosisAt = s.n;
    }
    if (s.node === "planner" && Array.isArray(u.steps) && u.steps[0]) st.answer = u.steps[0].answer;
  }
  return st;
}

/** What kind of moment a step is, for the timeline's marks. */
function stepClass(s) {
  const u = s.update || {};
  if (s.node === "critic" && u.critique && u.critique.verdict !== "ok") return "objection";
  if (s.node === "verifier" && u.plan === null) return "objection";
  if (s.node === "executor") {
    const e = Array.isArray(u.history) ? u.history.find((x) => x.kind === "action") : null;
    if (e && !e.ok) return "failed";
    if ((u.log || []).some((x) => x.kind === "motion" && !x.ok)) return "failed";
    if (u.steps && !Array.isArray(u.steps) && u.steps.result && u.steps.result.stalled) return "failed";
  }
  if (["diagnose", "remap_reasons", "consolidate"].includes(s.node)) return "diagnosis";
  if (u.status === "succeeded") return "done";
  if (u.status && u.status !== "running") return "failed";
  return "";
}

/** Residuals of a motion's terms: from the world's event log where the record has it, else from the controller's message. */
function residuals(run, r) {
  const out = [];
  const logged = (run.worldEvents || []).filter((e) => /^motion \d+ ended: /.test(e.detail || ""));
  const e = logged[r.motionIndex];
  if (e) {
    for (const part of e.detail.replace(/^motion \d+ ended: /, "").split("; ")) {
      const m = /^(.*) = (-?[\d.]+)$/.exec(part);
      if (m) out.push({ term: m[1], residual: Number(m[2]) });
    }
  }
  const msg = r.message || "";
  for (const m of msg.matchAll(
    /(?:primary term |; |unmet: )?([a-z_]+\([^)]*\)) (?:not met: |met: )?residual (-?[\d.]+) (<=|>) ([\d.]+)/g,
  )) {
    const hit = out.find((x) => x.term === m[1]);
    if (hit) {
      hit.tolerance = Number(m[4]);
      hit.met = m[3] === "<=";
    } else out.push({ term: m[1], residual: Number(m[2]), tolerance: Number(m[4]), met: m[3] === "<=" });
  }
  return out;
}

function termText(t) {
  if (typeof t === "string") return t;
  const args =
    {
      minimize_l2_distance: [t.a, t.b],
      maximize_l2_distance: [t.a, t.b, t.distance],
      set_joint_fraction: [t.joint, t.fraction],
      set_obj_z_position: [t.obj, t.z],
      set_obj_orientation: [t.obj, t.axis, t.radians],
    }[t.kind] || [];
  return `${t.kind}(${args.filter((a) => a !== undefined).join(", ")})${t.weight !== undefined && t.weight !== 1 ? ` ×${t.weight}` : ""}${t.primary ? "  # primary" : ""}`;
}

/** Draws a frame's detections over it: a box and a label per detection, in the detector's pixel frame. */
function drawBoxes(img, canvas, f) {
  // Drawn at the size the frame is shown, so labels stay legible however small the camera's image is.
  const w = img.clientWidth || img.naturalWidth,
    hgt = img.clientHeight || img.naturalHeight;
  canvas.width = w;
  canvas.height = hgt;
  const ctx = canvas.getContext("2d");
  ctx.clearRect(0, 0, w, hgt);
  const boxes = f.boxes || [];
  const sx = w / (f.width || img.naturalWidth),
    sy = hgt / (f.height || img.naturalHeight);
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

function cameraFigure(f, atStep) {
  const canvas = h("canvas", { class: "boxes", "data-boxes": "0" });
  const img = h("img", { class: "frame", alt: `${f.camera} at step ${f.n}`, "data-camera": f.camera });
  img.addEventListener("load", () => drawBoxes(img, canvas, f));
  if (f.src) img.src = f.src;
  const det =
    f.boxes === null
      ? "no detections on record for this frame"
      : `${f.boxes.length} detection${f.boxes.length === 1 ? "" : "s"}: ${f.boxes.map((b) => `${b.label}${b.note ? ` (${b.note})` : ""}`).join(", ") || "none"}`;
  return h(
    "figure",
    { class: "camera" },
    h(
      "div",
      { class: "stage" },
      f.src
        ? img
        : h(
            "div",
            { class: "muted", style: "width:320px;height:240px;line-height:240px;text-align:center" },
            "frame not on disk",
          ),
      canvas,
    ),
    h(
      "figcaption",
      {},
      h("b", {}, f.camera),
      ` — taken at step ${f.n}${f.n === atStep ? " (this step)" : ""}; ${det}`,
      f.caption ? h("div", { class: "muted" }, f.caption) : "",
    ),
  );
}

function kv(obj) {
  return h("pre", {}, JSON.stringify(obj, null, 1));
}

function panels(run, st, s) {
  const out = [];
  const u = s.update || {};
  // This step.
  out.push(
    h(
      "div",
      { class: "panel", id: "step-panel" },
      h("h3", {}, `step ${s.n}: ${s.node}`),
      h("div", {}, s.text || h("span", { class: "muted" }, "(no change it reports)")),
      h(
        "div",
        { class: "muted" },
        `${s.t !== null ? `t = ${fmt(s.t / 1000, 2)} s; ` : ""}model calls ${s.usage.calls}, tokens ${s.usage.inputTokens} in / ${s.usage.outputTokens} out (run so far: ${st.calls} calls, ${st.inputTokens}+${st.outputTokens} tokens)`,
      ),
      h("details", {}, h("summary", {}, "the node's update as recorded"), kv(u)),
    ),
  );
  // Critic verdict and diagnoses, highlighted.
  if (st.critique) {
    const c = st.critique;
    out.push(
      h(
        "div",
        { class: `panel ${c.verdict === "ok" ? "" : "alert"}`, id: "critic-panel" },
        h("h3", {}, `critic (step ${st.critiqueAt})`),
        h(
          "div",
          {},
          h("b", { class: c.verdict === "ok" ? "ok" : "bad" }, c.verdict),
          " on ",
          h("code", {}, callText(c.action)),
        ),
        c.feedback ? h("div", {}, c.feedback) : "",
      ),
    );
  }
  if (s.node === "verifier" && u.plan === null && u.lastFailure)
    out.push(
      h("div", { class: "panel alert" }, h("h3", {}, "verifier rejected the plan"), h("div", {}, u.lastFailure)),
    );
  if (st.explanations.length || st.reasons.length) {
    out.push(
      h(
        "div",
        { class: "panel diag", id: "diagnosis-panel" },
        h("h3", {}, `diagnosis (step ${st.diagnosisAt})`),
        st.explanations.length
          ? h(
              "ul",
              {},
              st.explanations.map((e) => h("li", {}, e)),
            )
          : "",
        st.reasons.length ? h("div", {}, h("b", {}, "reasons: "), st.reasons.join("; ")) : "",
      ),
    );
  }
  // Belief and plan.
  if (st.belief) {
    const b = st.belief;
    out.push(
      h(
        "div",
        { class: "panel", id: "belief-panel" },
        h("h3", {}, "belief"),
        h("div", {}, b.progress || ""),
        b.objects
          ? h(
              "ul",
              {},
              b.objects.map((o) => h("li", {}, `${o.name} at ${o.place} (${o.source})`)),
            )
          : "",
        b.containers ? h("div", { class: "muted" }, b.containers.map((c) => `${c.name} ${c.state}`).join(", ")) : "",
        b.holding
          ? h("div", { class: "muted" }, b.holding.map((x) => `${x.robot} holds ${x.object || "nothing"}`).join("; "))
          : "",
      ),
    );
  }
  if (st.scene.length || st.facts.length) {
    out.push(
      h(
        "div",
        { class: "panel", id: "scene-panel" },
        h("h3", {}, "scene and facts"),
        h("div", {}, st.scene.join(", ")),
        st.facts.length
          ? h(
              "ul",
              {},
              st.facts.map((f) => h("li", {}, f)),
            )
          : "",
      ),
    );
  }
  if (st.plan) {
    const p = st.plan;
    const rows = (p.steps || []).map((x, k) =>
      h(
        "li",
        { class: k === st.cursor ? "cursor" : k < st.cursor ? "past" : "" },
        x.kind ? `[${x.kind}] ${x.action}` : callText(x),
      ),
    );
    out.push(
      h(
        "div",
        { class: "panel", id: "plan-panel" },
        h("h3", {}, "plan"),
        p.subgoal ? h("div", {}, h("b", {}, "sub-goal: "), p.subgoal) : "",
        p.thought || p.rationale ? h("div", { class: "muted" }, p.thought || p.rationale) : "",
        h("ol", {}, rows),
      ),
    );
  } else if (st.vlmpcPlan) {
    out.push(
      h(
        "div",
        { class: "panel", id: "plan-panel" },
        h("h3", {}, "plan"),
        h(
          "ol",
          {},
          st.vlmpcPlan.map((c) => h("li", {}, `${c.skill} ${c.magnitude}`)),
        ),
        st.answer ? h("div", { class: "muted" }, st.answer.progress, " — ", st.answer.comparison) : "",
      ),
    );
  }
  if (st.answers && st.answers.length)
    out.push(
      h(
        "div",
        { class: "panel" },
        h("h3", {}, "vision questions"),
        h(
          "ul",
          {},
          st.answers.map((a) => h("li", {}, `${a.question} → ${a.answer}`)),
        ),
      ),
    );
  // Reward terms of the motion in hand, and each motion's residuals.
  if (st.motion && st.motion.terms) {
    out.push(
      h(
        "div",
        { class: "panel", id: "motion-panel" },
        h("h3", {}, `motion: ${st.motion.step}`),
        h(
          "ul",
          {},
          st.motion.terms.map((t) => h("li", {}, h("code", {}, termText(t)))),
        ),
        h("div", { class: "muted" }, `duration ${st.motion.duration} s`),
      ),
    );
  }
  const motions = st.results.filter((r) => r.terms);
  if (motions.length) {
    out.push(
      h(
        "div",
        { class: "panel", id: "residuals-panel" },
        h("h3", {}, "motions: reward terms and residuals"),
        motions.map((r) => {
          const res = residuals(run, r);
          return h(
            "div",
            {},
            h(
              "div",
              {},
              h("b", { class: r.ok ? "ok" : "bad" }, r.ok ? "met" : "not met"),
              ` step ${r.n}: ${r.what} (${fmt(r.seconds, 2)} s)`,
            ),
            h(
              "table",
              { class: "residuals" },
              h("tr", {}, h("th", {}, "term"), h("th", {}, "residual"), h("th", {}, "tolerance")),
              (res.length ? res : r.terms.map((t) => ({ term: t }))).map((x) =>
                h(
                  "tr",
                  {},
                  h("td", {}, h("code", {}, x.term)),
                  h(
                    "td",
                    { class: `num ${x.met === false ? "bad" : ""}` },
                    x.residual !== undefined ? fmt(x.residual, 3) : "–",
                  ),
                  h("td", { class: "num" }, x.tolerance !== undefined ? fmt(x.tolerance, 2) : ""),
                ),
              ),
            ),
          );
        }),
      ),
    );
  }
  // Skill results.
  if (st.results.length) {
    out.push(
      h(
        "div",
        { class: "panel", id: "results-panel" },
        h("h3", {}, "skill results"),
        h(
          "table",
          {},
          h("tr", {}, h("th", {}, "step"), h("th", {}, "skill"), h("th", {}, "result"), h("th", {}, "s")),
          st.results.map((r) =>
            h(
              "tr",
              { class: r.n === s.n ? "current" : "" },
              h("td", { class: "num" }, r.n),
              h("td", {}, r.what),
              h("td", { class: r.ok ? "ok" : "bad" }, `${r.ok ? "ok" : "FAILED"}: ${r.message}`),
              h("td", { class: "num" }, fmt(r.seconds, 2)),
            ),
          ),
        ),
      ),
    );
  }
  if (st.lastFailure && s.node !== "verifier")
    out.push(h("div", { class: "panel diag" }, h("h3", {}, "last failure"), h("div", {}, st.lastFailure)));
  return out;
}

function goalCheck(run) {
  const s = run.summary || run.result;
  const goal = s && Array.isArray(s.goal) ? s.goal : null;
  const checked = s
    ? typeof s.checked === "boolean"
      ? s.checked
      : typeof s.goalHeld === "boolean"
        ? s.goalHeld
        : null
    : null;
  if (!goal && checked !== null)
    return h(
      "div",
      { class: `panel ${checked ? "" : "alert"}`, id: "goal-panel" },
      h("h3", {}, "final goal check (simulator)"),
      h(
        "div",
        { class: checked ? "ok" : "bad" },
        checked ? "✓ the simulator confirms the goal" : "✗ the simulator finds the goal not met",
      ),
    );
  if (!goal)
    return h(
      "div",
      { class: "panel", id: "goal-panel" },
      h("h3", {}, "final goal check"),
      h(
        "span",
        { class: "muted" },
        run.summary || run.result
          ? "the record has no simulator check (a real robot, or the run could not reach it)"
          : "the run did not finish: no check on record",
      ),
    );
  return h(
    "div",
    { class: `panel ${goal.every((g) => g.holds) ? "" : "alert"}`, id: "goal-panel" },
    h("h3", {}, "final goal check (simulator)"),
    h(
      "ul",
      {},
      goal.map((g) => h("li", { class: g.holds ? "ok" : "bad" }, `${g.holds ? "✓" : "✗"} ${g.literal}`)),
    ),
    s.disagreement ? h("div", { class: "bad" }, s.disagreement) : "",
  );
}

async function runPage(rel) {
  const run = await api(`/api/run/${enc(rel)}`);
  document.title = `run ${run.id} — robograph view`;
  crumbs.replaceChildren(
    " / ",
    ...(run.experiment ? [h("a", { href: `/experiment/${enc(run.experiment)}` }, run.experiment), " / "] : []),
    run.id,
  );
  const s = run.summary || run.result;
  const status = s ? s.status : run.lastCheckpoint ? run.lastCheckpoint.status : "incomplete";
  const head = h(
    "div",
    {},
    h("h1", {}, `Run ${run.id} `, statusBadge(s ? s.status : "incomplete", s ? s.success : null)),
    run.goal ? h("div", {}, h("b", {}, "goal: "), run.goal) : "",
    run.reportPage
      ? h("div", {}, h("a", { id: "report-link", href: run.reportPage }, "the run's report: its tables and charts"))
      : "",
    h(
      "div",
      { class: "facts" },
      h("span", {}, `method: ${run.mode || "unknown"}`),
      s
        ? [
            h("span", {}, `variant ${s.variant}`),
            s.model ? h("span", {}, `model ${s.model}`) : "",
            h("span", {}, `steps ${s.steps}`),
            h("span", {}, `replans ${s.replans}`),
            h("span", {}, `model calls ${s.modelCalls}`),
            h("span", {}, `skill time ${s.skillSeconds} s`),
            h("span", {}, `wall ${s.wallSeconds} s`),
            h("span", {}, `${s.status}: ${s.statusReason}`),
          ]
        : h(
            "span",
            {},
            `last checkpoint: ${status || "none"}${run.lastCheckpoint && run.lastCheckpoint.statusReason ? ` (${run.lastCheckpoint.statusReason})` : ""}`,
          ),
    ),
    run.notes.length
      ? h(
          "div",
          { class: "notes", id: "notes" },
          run.notes.map((n) => h("div", {}, n)),
        )
      : "",
  );
  if (!run.steps.length) {
    app.replaceChildren(head, h("p", { class: "muted" }, "No steps on record."), goalCheck(run));
    return;
  }
  const items = run.steps.map((x, k) =>
    h(
      "li",
      { class: stepClass(x), "data-n": x.n, onclick: () => go(k) },
      h("span", { class: "muted" }, x.n),
      h("span", {}, x.node),
      h("span", { class: "what", title: x.text }, x.text),
    ),
  );
  const timeline = h("div", { class: "timeline", tabindex: "0" }, h("ol", {}, items));
  const slider = h("input", { type: "range", min: 1, max: run.steps.length, value: 1, "aria-label": "step" });
  const label = h("span", { id: "step-label" });
  const view = h("div", { id: "step-view" });
  slider.addEventListener("input", () => go(Number(slider.value) - 1));
  const gifs = run.cameras.length
    ? h(
        "div",
        {},
        h("h2", {}, "Each camera over the run (GIF)"),
        h(
          "div",
          { class: "gifs" },
          run.cameras.map((c) =>
            h(
              "figure",
              { class: "camera" },
              h("img", {
                class: "gif",
                src: `/gif/${enc(rel)}/${encodeURIComponent(c)}.gif`,
                alt: `${c} over the run`,
                loading: "lazy",
              }),
              h("figcaption", {}, c),
            ),
          ),
        ),
      )
    : "";
  const checkpoints = run.checkpoints
    ? h(
        "details",
        { id: "checkpoints" },
        h("summary", {}, `LangGraph checkpoint history: ${run.checkpoints.length} checkpoints`),
        h(
          "table",
          {},
          h(
            "tr",
            {},
            h("th", {}, "step"),
            h("th", {}, "source"),
            h("th", {}, "next"),
            h("th", {}, "status"),
            h("th", {}, "checkpoint id"),
            h("th", {}, "at"),
          ),
          run.checkpoints.map((c) =>
            h(
              "tr",
              {},
              h("td", { class: "num" }, c.step),
              h("td", {}, c.source),
              h("td", {}, c.next.join(", ")),
              h("td", {}, c.status || ""),
              h("td", {}, h("code", {}, c.id)),
              h("td", {}, c.at || ""),
            ),
          ),
        ),
      )
    : h(
        "p",
        { class: "muted" },
        run.experiment
          ? "Experiment episodes keep no checkpoints (they run with an in-memory checkpointer)."
          : "No checkpoint history for this thread in the data directory.",
      );
  app.replaceChildren(
    head,
    h(
      "div",
      { class: "run" },
      timeline,
      h(
        "div",
        {},
        h(
          "div",
          { class: "stepbar" },
          label,
          slider,
          h(
            "span",
            { class: "muted" },
            h("kbd", {}, "←"),
            h("kbd", {}, "→"),
            " step, ",
            h("kbd", {}, "Home"),
            h("kbd", {}, "End"),
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
        ? h(
            "div",
            { class: "cameras" },
            frames.map((f) => cameraFigure(f, step.n)),
          )
        : h("p", { class: "muted" }, "no frame yet"),
      h("div", { class: "panels" }, panels(run, st, step)),
    );
    history.replaceState(null, "", `#step=${step.n}`);
  }
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement && e.target !== slider) return;
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
    if (!(e.key in moves)) return;
    e.preventDefault();
    go(moves[e.key]);
  });
  const m = /step=(\d+)/.exec(location.hash);
  go(m ? Number(m[1]) - 1 : 0);
  app.append(h("h2", {}, "Outcome"), goalCheck(run));
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
      const cells = (r) =>
        r
          .replace(/^\||\|$/g, "")
          .split(/(?<!\\)\|/)
          .map((c) => c.trim().replace(/\\\|/g, "|"));
      const body = rows.filter((r) => !/^\|[\s|:-]+\|$/.test(r));
      const [headRow, ...rest] = body;
      out.push(
        h(
          "table",
          { class: "paper" },
          h(
            "tr",
            {},
            cells(headRow).map((c) => h("th", {}, c)),
          ),
          rest.map((r) =>
            h(
              "tr",
              {},
              cells(r).map((c) => h("td", { class: /^[\d.%() /–-]+$/.test(c) ? "num" : "" }, c)),
            ),
          ),
        ),
      );
    } else if (line.startsWith("# ")) continue;
    else if (line.startsWith("## ")) out.push(h("h2", {}, line.slice(3)));
    else if (line.startsWith("### ")) out.push(h("h3", {}, line.slice(4)));
    else if (line.trim() && !line.startsWith("![")) out.push(h("p", {}, line.replace(/`/g, "")));
  }
  return out;
}

const charts = [];

function chart(spec) {
  const canvas = h("canvas", { id: spec.id });
  const box = h("div", { class: "chart", "data-chart": spec.id }, canvas);
  queueMicrotask(() => {
    const many = spec.datasets.length > 1;
    const datasets = spec.datasets.map((d, k) => ({
      ...d,
      backgroundColor:
        many || spec.type === "line"
          ? PALETTE[k % PALETTE.length]
          : spec.labels.map((_, i) => PALETTE[i % PALETTE.length]),
      borderColor: PALETTE[k % PALETTE.length],
      spanGaps: true,
    }));
    const c = new Chart(canvas, {
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
    charts.push(c);
  });
  return box;
}

const PALETTE = ["#1f5fa8", "#d1495b", "#edae49", "#00798c", "#66a182", "#8d6a9f", "#2e4057", "#c17c74"];

/** A cell as report.md prints it: a link's text, or a frame of the record (a curriculum run's cycle images) drawn. */
function cellContent(rel, c) {
  const img = /^!\[([^\]]*)\]\((frames\/[\w.-]+\.png)\)$/.exec(c);
  if (img)
    return h("img", {
      class: "cell-frame",
      src: `/file/${enc(rel)}/${img[2]}`,
      alt: img[1] || img[2],
      loading: "lazy",
    });
  return c.replace(/^\[([^\]]*)\]\([^)]*\)$/, "$1");
}

/** A table of the report, as report.json holds it (the cells report.md prints). */
function paperTable(rel, t) {
  return h(
    "section",
    { class: "paper-table", "data-table": t.id },
    h("h2", {}, t.title),
    t.note ? h("p", { class: "muted" }, t.note.replace(/`/g, "")) : "",
    t.rows.length ? "" : h("p", { class: "muted" }, "(no rows)"),
    h(
      "table",
      { class: "paper" },
      h(
        "tr",
        {},
        t.columns.map((c) => h("th", {}, c)),
      ),
      t.rows.map((r) =>
        h(
          "tr",
          {},
          r.map((c) => h("td", { class: /^[\d.%() /–-]+$/.test(c) ? "num" : "" }, cellContent(rel, c))),
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
  const r = x.report;
  const parts = [
    h(
      "h1",
      { "data-method": x.method || "" },
      `${what} ${x.name}`,
      x.method ? h("span", { class: "badge method" }, x.methodTitle) : "",
    ),
  ];
  if (x.facts.length)
    parts.push(
      h(
        "div",
        { class: "facts", id: "facts" },
        x.facts.map((f) => h("span", {}, f)),
      ),
    );
  if (x.reportError)
    parts.push(
      h(
        "div",
        { class: "notes bad", id: "report-error" },
        h("b", {}, "This report cannot be shown as its method's tables: "),
        x.reportError,
      ),
    );
  if (x.notes.length)
    parts.push(
      h(
        "div",
        { class: "notes" },
        x.notes.map((n) => h("div", {}, n)),
      ),
    );
  if (x.timeline)
    parts.push(h("p", {}, h("a", { href: `/run/${enc(rel)}` }, "the run's timeline (every node's update)")));
  if (x.charts.length) parts.push(h("h2", {}, "Charts"), h("div", { class: "charts" }, x.charts.map(chart)));
  // The runner's episodes are the linked list below; a verdicts table with nothing counted says nothing.
  const shown = r
    ? r.tables.filter(
        (t) =>
          !(t.id === "episodes" && x.runner) &&
          !(t.id === "verdicts" && t.rows.every((row) => row.slice(1).every((c) => c === "0"))),
      )
    : [];
  if (r)
    parts.push(
      h(
        "div",
        { id: "tables" },
        shown.map((t) => paperTable(rel, t)),
      ),
    );
  else if (x.markdown) parts.push(h("div", { id: "tables" }, markdownTables(x.markdown)));
  if (x.runner) {
    parts.push(
      h("h2", {}, "Episodes"),
      h(
        "table",
        { id: "episodes" },
        h(
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
          ].map((c) => h("th", {}, c)),
        ),
        x.episodes.map((e) =>
          h(
            "tr",
            {},
            h("td", {}, e.href ? h("a", { href: e.href, class: "episode" }, e.id) : e.id),
            h("td", {}, e.variant || ""),
            h("td", {}, e.task || ""),
            h("td", { class: "num" }, e.seed ?? ""),
            h(
              "td",
              {},
              e.status
                ? statusBadge(e.status, e.success)
                : h("span", { class: "muted" }, e.recorded ? "no result (interrupted?)" : ""),
            ),
            h("td", {}, e.success === true ? "yes" : e.success === false ? "no" : ""),
            h("td", { class: "num" }, e.steps ?? ""),
            h("td", { class: "num" }, e.replans ?? ""),
            h("td", { class: "num" }, e.modelCalls ?? ""),
            h("td", { class: "num" }, fmt(e.skillSeconds, 1)),
            h("td", { class: "num" }, fmt(e.wallSeconds, 2)),
          ),
        ),
      ),
    );
  }
  app.replaceChildren(...parts);
}

window.robographCharts = charts;
main();
