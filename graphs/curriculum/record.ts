/**
 * The record a curriculum run leaves (runs/<id>/): the library over time, every proposal / decomposition / retrieval in
 * Table 2's layout (the library at each stage beside what was proposed from that stage's image), each learning curve's
 * plots with the analyst's verdicts, the cumulative share of curves judged converged per task family (Fig. 5), and the
 * diversity of the collected data against the base-skill data (Table 1's idea) — as report.json (checked against the curriculum's schema, graphs/curriculum/report.ts), report.md and report.html.
 */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import type { ArtifactStore } from "../../memory/artifacts";
import type { CurriculumStateType, EpisodeSummary } from "./state";
import { baseLibrary } from "./nodes/skills";
import type { StageRow } from "./stages";
import { checkedAgainst, REPORT_FORMAT, reportHtml, tablesOfReport } from "../report";
import { curriculumReport } from "./report";

// ---- Fig. 5: cumulative share of curves judged converged, per task family -----------------------------------------

export interface FamilyShare {
  family: string;
  skills: string[];
  /** Share (0–1) of the family's learned skills judged converged by each learner iteration (index = iteration). */
  share: number[];
}

export function convergedShare(state: CurriculumStateType): FamilyShare[] {
  const iterations = state.counters.iterations;
  const families = new Map<string, string[]>();
  for (const t of Object.values(state.targets)) families.set(t.family, [...(families.get(t.family) ?? []), t.caption]);
  return [...families].map(([family, skills]) => {
    const share = Array.from({ length: iterations + 1 }, (_, it) => {
      const done = skills.filter((c) => state.targets[c].analyses.some((a) => a.converged && a.iteration <= it)).length;
      return done / skills.length;
    });
    return { family, skills, share };
  });
}

// ---- Table 1's idea: how spread out the collected data are -------------------------------------------------------

/** Mean pairwise L2 distance of the points (features normalised per dimension by `ref`, then to unit norm, as the paper). */
function normaliser(ref: number[][]) {
  const dimensions = ref[0]?.length ?? 0;
  const mean = Array.from({ length: dimensions }, (_, j) => ref.reduce((a, p) => a + p[j], 0) / ref.length);
  const std = Array.from(
    { length: dimensions },
    (_, j) => Math.sqrt(ref.reduce((a, p) => a + (p[j] - mean[j]) ** 2, 0) / ref.length) || 1,
  );
  return (point: number[]) => {
    const z = point.map((x, j) => (x - mean[j]) / std[j]);
    const norm = Math.hypot(...z) || 1;
    return z.map((x) => x / norm);
  };
}
const dist = (a: number[], b: number[]) => Math.hypot(...a.map((x, i) => x - b[i]));

function meanPairwise(points: number[][]): number {
  let sum = 0,
    pairs = 0;
  for (let i = 0; i < points.length; i++)
    for (let j = i + 1; j < points.length; j++) {
      sum += dist(points[i], points[j]);
      pairs++;
    }
  return pairs ? sum / pairs : 0;
}

/** k-means (deterministic: the first centres are spread by farthest-point choice from the first point). */
function kmeans(points: number[][], k: number, rounds = 50): number[][] {
  if (!points.length) return [];
  const centres = [points[0]];
  while (centres.length < Math.min(k, points.length)) {
    let far = points[0],
      farD = -1;
    for (const p of points) {
      const distance = Math.min(...centres.map((c) => dist(p, c)));
      if (distance > farD) {
        far = p;
        farD = distance;
      }
    }
    centres.push(far);
  }
  for (let r = 0; r < rounds; r++) {
    const sums = centres.map((c) => ({ n: 0, s: c.map(() => 0) }));
    for (const p of points) {
      const i = centres.reduce((bi, c, ci) => (dist(p, c) < dist(p, centres[bi]) ? ci : bi), 0);
      sums[i].n++;
      p.forEach((x, j) => (sums[i].s[j] += x));
    }
    sums.forEach((g, i) => g.n && (centres[i] = g.s.map((x) => x / g.n)));
  }
  return centres;
}

export interface Spread {
  episodes: number;
  /** Mean pairwise distance of the final block configurations (normalised). */
  l2: number;
  /** Mean distance to the nearest of 5 clusters learned on the base-skill data. */
  cluster: number;
  uniqueSequences: number;
  skillsUsed: number;
}

export interface Diversity {
  base: Spread;
  curriculum: Spread;
  all: Spread;
  uniqueProposals: number;
  uniqueDecompositions: number;
  proposals: number;
  note: string;
}

export function diversity(state: CurriculumStateType): Diversity {
  const base = new Set(baseLibrary());
  const withEnd = state.episodes.filter((e): e is EpisodeSummary & { end: number[] } => !!e.end);
  const isBase = (e: EpisodeSummary) => e.skills.every((c) => base.has(c));
  const plans = withEnd.filter((e) => e.purpose === "plan");
  const baseEps = plans.filter(isBase);
  const curEps = plans.filter((e) => !isBase(e));
  const norm = normaliser(baseEps.length >= 2 ? baseEps.map((e) => e.end) : withEnd.map((e) => e.end));
  const centres = kmeans(
    (baseEps.length >= 5 ? baseEps : withEnd).map((e) => norm(e.end)),
    5,
  );
  const spread = (eps: (EpisodeSummary & { end: number[] })[]): Spread => {
    const pts = eps.map((e) => norm(e.end));
    return {
      episodes: eps.length,
      l2: round(meanPairwise(pts)),
      cluster: round(
        pts.length && centres.length
          ? pts.reduce((a, p) => a + Math.min(...centres.map((c) => dist(p, c))), 0) / pts.length
          : 0,
      ),
      uniqueSequences: new Set(eps.map((e) => e.skills.join(" → "))).size,
      skillsUsed: new Set(eps.flatMap((e) => e.skills)).size,
    };
  };
  const decompositions = state.cycles.filter((c) => c.decomposition).map((c) => c.decomposition!.steps.join(" | "));
  return {
    base: spread(baseEps),
    curriculum: spread(curEps),
    all: spread(withEnd),
    uniqueProposals: new Set(state.cycles.map((c) => c.proposal.task)).size,
    uniqueDecompositions: new Set(decompositions).size,
    proposals: state.cycles.length,
    note: "features: the three blocks' final centres (x, y, z), normalised per dimension on the base-skill data, then to unit norm; base-skill data = the curriculum's plans that used base skills only; practice episodes (a skill being learned, alone) count only under all",
  };
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

// ---- Fig. 5 as a plot ----------------------------------------------------------------------------------------------

const PALETTE = [
  "#1f5fbf",
  "#d62728",
  "#2ca02c",
  "#9467bd",
  "#ff7f0e",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#7f7f7f",
  "#bcbd22",
];

export async function shareChart(shares: FamilyShare[]): Promise<Buffer> {
  const width = 420,
    height = 240,
    left = 40,
    right = 300,
    top = 20,
    bottom = 200;
  const lastIteration = Math.max(1, ...shares.map((f) => f.share.length - 1));
  const x = (i: number) => left + ((right - left) * i) / lastIteration;
  const y = (v: number) => bottom - (bottom - top) * v;
  const lines = shares.map(
    (familyShare, k) =>
      `<polyline points="${familyShare.share.map((v, i) => `${x(i)},${y(v)}`).join(" ")}" fill="none" stroke="${PALETTE[k % PALETTE.length]}" stroke-width="2"/>` +
      `<text x="${right + 8}" y="${top + 14 * k + 10}" font-family="sans-serif" font-size="10" fill="${PALETTE[k % PALETTE.length]}">${familyShare.family}</text>`,
  );
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="${width}" height="${height}" fill="#fff"/>` +
    `<rect x="${left}" y="${top}" width="${right - left}" height="${bottom - top}" fill="none" stroke="#222"/>` +
    `<text x="${left - 4}" y="${bottom}" font-family="sans-serif" font-size="10" text-anchor="end">0%</text><text x="${left - 4}" y="${top + 8}" font-family="sans-serif" font-size="10" text-anchor="end">100%</text>` +
    `<text x="${(left + right) / 2}" y="${height - 12}" font-family="sans-serif" font-size="10" text-anchor="middle">learner iterations (0–${lastIteration})</text>` +
    `${lines.join("")}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

// ---- the record ----------------------------------------------------------------------------------------------------

export interface RunFacts {
  thread: string;
  model: string;
  instances: number;
  seed: number;
  noise: number;
  wallSeconds: number;
  budgets: { episodes: number; iterations: number; wallSeconds: number };
  /** The learner's elite share and step the run used. */
  learner?: { elite: number; step: number };
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export async function writeCurriculumRecord(
  dir: string,
  state: CurriculumStateType,
  facts: RunFacts,
  artifacts: ArtifactStore,
  sameImage?: { frame: string; rows: StageRow[] },
): Promise<{ json: Record<string, unknown>; markdown: string }> {
  mkdirSync(join(dir, "curves"), { recursive: true });
  mkdirSync(join(dir, "frames"), { recursive: true });
  const learned = state.library.filter((l) => l.source === "learned");
  const shares = convergedShare(state);
  const div = diversity(state);
  writeFileSync(join(dir, "fig5-converged-share.png"), await shareChart(shares));
  const md: string[] = [
    `# Curriculum run ${facts.thread}`,
    "",
    `- model: ${facts.model}${facts.model === "symbolic" ? ` (noise ${facts.noise}, seed ${facts.seed})` : ""}; ${facts.instances} simulator instance(s)`,
    `- ended: **${state.status}** — ${state.statusReason}`,
    `- budgets: ${facts.budgets.episodes} episodes, ${facts.budgets.iterations} learner iterations, ${facts.budgets.wallSeconds} s; used ${state.counters.episodes} episodes, ${state.counters.iterations} iterations, ${Math.round(facts.wallSeconds)} s`,
    `- cycles: ${state.cycles.length} proposals, ${state.counters.discards} plans discarded for a missing skill, ${state.cycles.filter((c) => c.outcome?.kind === "embodied").length} embodied`,
    `- library: ${state.library.length} skills (${state.library.length - learned.length} base + ${learned.length} learned by the run: ${learned.map((l) => `${l.caption} @${l.since}`).join(", ") || "none"})`,
    "",
    "## The library over time",
    "",
    "| learner iteration | skills added | library size |",
    "|---|---|---|",
  ];
  const stages = [...new Set(state.library.map((l) => l.since))].sort((a, b) => a - b);
  for (const it of stages)
    md.push(
      `| ${it} | ${state.library
        .filter((l) => l.since === it)
        .map((l) => l.caption)
        .join(", ")} | ${state.library.filter((l) => l.since <= it).length} |`,
    );

  if (sameImage?.rows.length) {
    copyFileSync(artifacts.path(sameImage.frame), join(dir, "frames/table2.png"));
    md.push(
      "",
      "## The same image at each library stage (Table 2)",
      "",
      "Asked after the run, as the paper's Appendix E: the run's first view of the basket, the library as it stood after each learner iteration that added skills, its captions given as the completed tasks and no failures.",
      "",
      "![the image](frames/table2.png)",
      "",
      "| learner iteration | library | proposition | decomposition | retrieval |",
      "|---|---|---|---|---|",
    );
    const base = new Set(baseLibrary());
    for (const r of sameImage.rows)
      md.push(
        `| ${r.iteration} | ${cell(["base", ...r.library.filter((l) => !base.has(l))].join(" + "))} | ${cell(`${r.proposal.task} — ${r.proposal.reasoning}`)} | ${cell(`[${r.steps.join(", ")}]`)} | ${cell(`[${r.retrievals.map((x) => x.skill ?? `✗ ${x.step}`).join(", ")}]`)} |`,
      );
  }

  // Table 2's layout: for each library stage, the proposal, decomposition and retrieval made with it (frame beside).
  md.push(
    "",
    "## Every proposal, decomposition and retrieval of the run",
    "",
    "Each row: the library the curriculum had, the image it proposed from, and what it proposed, decomposed and retrieved.",
    "",
    "| # | library (size) | image | proposition | decomposition | retrieval | outcome |",
    "|---|---|---|---|---|---|---|",
  );
  for (const c of state.cycles) {
    const frame = `frames/cycle-${String(c.cycle).padStart(3, "0")}.png`;
    try {
      copyFileSync(artifacts.path(c.scene.frame), join(dir, frame));
    } catch {
      // A frame missing from the artifact store (another data directory): the row stands without it.
    }
    const base = new Set(baseLibrary());
    const lib = `${c.library.length}: base${c.library
      .filter((l) => !base.has(l))
      .map((l) => ` + ${l}`)
      .join("")}`;
    const outcome = !c.outcome
      ? "—"
      : c.outcome.kind === "discarded"
        ? `discarded (no skill for: ${c.outcome.missing.join(", ")})`
        : `${c.outcome.successes}/${c.outcome.episodes} succeeded`;
    md.push(
      `| ${c.cycle} | ${cell(lib)} | ![](${frame}) | ${cell(`${c.proposal.task} — ${c.proposal.reasoning}`)} | ${cell(c.decomposition ? `[${c.decomposition.steps.join(", ")}]` : "")} | ${cell(c.retrievals ? `[${c.retrievals.map((r) => r.skill ?? `✗ ${r.step}`).join(", ")}]` : "")} | ${outcome} |`,
    );
  }

  md.push(
    "",
    "## Skills proposed for learning",
    "",
    "| cycle | step no library skill did | from task | rewardable skill | learned |",
    "|---|---|---|---|---|",
  );
  for (const p of state.proposals)
    md.push(
      `| ${p.cycle} | ${cell(p.step)} | ${cell(p.task)} | ${p.skill ?? "— (no reward known: cannot be learned)"} | ${p.skill && state.targets[p.skill]?.converged ? "yes" : "no"} |`,
    );

  md.push(
    "",
    "## Learning curves and the analyst's verdicts",
    "",
    "Evaluation return (mean over fixed layouts) per learner iteration, scaled to the known maximum; the plot each verdict was given.",
    "",
  );
  const curves: Record<string, unknown> = {};
  for (const t of Object.values(state.targets)) {
    const last = t.analyses.at(-1);
    md.push(
      `### ${t.caption} (${t.family}) — ${t.converged ? `**converged** at iteration ${t.analyses.find((a) => a.converged)?.iteration}${t.kept ? `; the library keeps the policy of curve point ${t.kept.point} (return ${t.kept.return.toFixed(1)} of ${t.maxReturn}; ${Math.round(t.kept.finalSuccess * 100)}% of evaluation episodes end with the skill's reward > 0.95)` : ""}` : "not converged"}`,
      "",
      `Proposed for: ${t.proposedFor}; learned from iteration ${t.since}; returns: ${t.returns.map((r) => r.toFixed(1)).join(", ")} (max ${t.maxReturn}); evaluation episodes ending with reward > 0.95: ${t.finalSuccess.map((x) => `${Math.round(x * 100)}%`).join(", ")}${t.selection ? `; on the selection layouts early stopping reads: ${t.selection.map((r) => r.toFixed(1)).join(", ")}` : ""}.`,
      "",
    );
    for (const a of t.analyses) {
      const file = `curves/${t.caption.replace(/\s+/g, "_")}-it${String(a.iteration).padStart(3, "0")}.png`;
      copyFileSync(artifacts.path(a.plot), join(dir, file));
      if (a === last || a.converged) md.push(`![${t.caption} at iteration ${a.iteration}](${file})`, "");
    }
    md.push(
      "| iteration | verdict | reasoning |",
      "|---|---|---|",
      ...t.analyses.map((a) => `| ${a.iteration} | ${a.converged ? "YES" : "NO"} | ${cell(a.reasoning)} |`),
      "",
    );
    curves[t.caption] = {
      family: t.family,
      since: t.since,
      returns: t.returns,
      selection: t.selection ?? null,
      maxReturn: t.maxReturn,
      finalSuccess: t.finalSuccess,
      analyses: t.analyses.map(({ plot: _p, ...a }) => a),
      converged: t.converged,
      kept: t.kept ?? null,
    };
  }

  md.push(
    "## Cumulative share of curves judged converged, per task family (Fig. 5)",
    "",
    "![Fig. 5](fig5-converged-share.png)",
    "",
    `| family | skills | ${Array.from({ length: state.counters.iterations + 1 }, (_, i) => i).join(" | ")} |`,
    `|---|---|${Array.from({ length: state.counters.iterations + 1 }, () => "---").join("|")}|`,
  );
  for (const f of shares)
    md.push(`| ${f.family} | ${f.skills.length} | ${f.share.map((v) => `${Math.round(v * 100)}%`).join(" | ")} |`);

  md.push(
    "",
    "## Data diversity against the base-skill data (Table 1's idea)",
    "",
    `${div.note}.`,
    "",
    "| data | episodes | L2 | cluster | unique skill sequences | skills used |",
    "|---|---|---|---|---|---|",
  );
  for (const [name, d] of [
    ["base-skill plans", div.base],
    ["plans with learned skills", div.curriculum],
    ["all (with practice episodes)", div.all],
  ] as const)
    md.push(`| ${name} | ${d.episodes} | ${d.l2} | ${d.cluster} | ${d.uniqueSequences} | ${d.skillsUsed} |`);
  md.push(
    "",
    `Unique proposals: ${div.uniqueProposals} of ${div.proposals}; unique decompositions: ${div.uniqueDecompositions}.`,
    "",
  );

  // What the wall clock measured sits apart: the rest repeats byte for byte under the run's seed.
  const { wallSeconds, ...settled } = facts;
  const markdown = md.join("\n") + "\n";
  const json = {
    format: REPORT_FORMAT,
    method: "curriculum" as const,
    thread: facts.thread,
    status: state.status,
    statusReason: state.statusReason,
    facts: settled,
    timing: { wallSeconds },
    counters: state.counters,
    library: state.library,
    cycles: state.cycles,
    proposals: state.proposals,
    curves,
    convergedShare: shares,
    diversity: div,
    sameImageStages: sameImage?.rows ?? [],
    episodes: state.episodes.map(({ start: _s, end: _e, ...e }) => e),
    tables: tablesOfReport("curriculum", curriculumReport.headings, markdown),
  };
  checkedAgainst("curriculum", curriculumReport.schema, json);
  writeFileSync(join(dir, "report.md"), markdown);
  writeFileSync(join(dir, "report.json"), JSON.stringify(json, null, 2));
  writeFileSync(
    join(dir, "report.html"),
    reportHtml({
      title: `Curriculum run ${facts.thread}`,
      facts: md
        .slice(2, md.indexOf("## The library over time"))
        .filter((l) => l.startsWith("- "))
        .map((l) => l.slice(2).replace(/\*\*/g, "")),
      figures: [
        `<h2>Cumulative share of curves judged converged, per task family (Fig. 5)</h2><img src="fig5-converged-share.png" alt="Fig. 5">`,
      ],
      tables: json.tables,
    }),
  );
  return { json, markdown };
}
