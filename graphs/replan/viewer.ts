/**
 * What the run viewer shows of a RePLan run: the diagnosis, the scene and its facts, the plan, the perceiver's answers,
 * the motion in hand with its reward terms, each motion's residuals, the skill results.
 */
import { fixed, skillResult, SKILL_RESULTS_PANEL, type MethodViewer } from "../viewer";
import type { ReplanEntry, ReplanStateType } from "./state";

type MotionEntry = Extract<ReplanEntry, { kind: "motion" }>;

/** Where the world's log says a motion ended, with each term's residual. */
const MOTION_ENDED = /^motion \d+ ended: /;

/** A reward term as the viewer prints it: its arguments bare, its weight where it is not 1, its primary mark. */
function termShown(term: unknown): string {
  if (typeof term === "string") return term;
  const parts = term as Record<string, unknown> & { kind: string };
  const args =
    {
      minimize_l2_distance: [parts.a, parts.b],
      maximize_l2_distance: [parts.a, parts.b, parts.distance],
      set_joint_fraction: [parts.joint, parts.fraction],
      set_obj_z_position: [parts.obj, parts.z],
      set_obj_orientation: [parts.obj, parts.axis, parts.radians],
    }[parts.kind] ?? [];
  return `${parts.kind}(${args.filter((a) => a !== undefined).join(", ")})${parts.weight !== undefined && parts.weight !== 1 ? ` ×${String(parts.weight)}` : ""}${parts.primary ? "  # primary" : ""}`;
}

/** A motion's terms with their residuals: from the world's event log where the record has it, else from the controller's message. */
function residuals(worldEvents: readonly { detail: string }[] | null, motion: MotionEntry, motionIndex: number) {
  const out: { term: string; residual: number; tolerance?: number; met?: boolean }[] = [];
  const event = (worldEvents ?? []).filter((e) => MOTION_ENDED.test(e.detail || ""))[motionIndex];
  if (event) {
    for (const part of event.detail.replace(MOTION_ENDED, "").split("; ")) {
      const match = /^(.*) = (-?[\d.]+)$/.exec(part);
      if (match) out.push({ term: match[1], residual: Number(match[2]) });
    }
  }
  for (const match of (motion.message || "").matchAll(
    /(?:primary term |; |unmet: )?([a-z_]+\([^)]*\)) (?:not met: |met: )?residual (-?[\d.]+) (<=|>) ([\d.]+)/g,
  )) {
    const hit = out.find((x) => x.term === match[1]);
    if (hit) {
      hit.tolerance = Number(match[4]);
      hit.met = match[3] === "<=";
    } else
      out.push({ term: match[1], residual: Number(match[2]), tolerance: Number(match[4]), met: match[3] === "<=" });
  }
  const shown = out.length ? out : motion.terms.map((term) => ({ term, residual: undefined, tolerance: undefined }));
  return shown.map((x) => ({
    term: x.term,
    residual: x.residual !== undefined ? fixed(x.residual, 3) : "–",
    tolerance: x.tolerance !== undefined ? fixed(x.tolerance, 2) : "",
    ...("met" in x ? { met: x.met } : {}),
  }));
}

export const replanViewer: MethodViewer = {
  panels: [
    {
      id: "diagnosis-panel",
      title: "diagnosis (step {at})",
      look: "diag",
      values: {
        explanations: { latest: "explanations", nonEmpty: true, initial: [] },
        reasons: { latest: "diagnosisReasons", initial: [] },
      },
      when: ["explanations.length", "reasons.length"],
      blocks: [
        { list: "explanations", item: "{.}", if: "explanations.length" },
        { line: [{ bold: "reasons: " }, "{reasons|join:; }"], if: "reasons.length" },
      ],
    },
    {
      id: "scene-panel",
      title: "scene and facts",
      values: { scene: { latest: "scene", initial: [] }, facts: { union: "facts" } },
      when: ["scene.length", "facts.length"],
      blocks: [
        { joined: "scene", item: "{.}", separator: ", " },
        { list: "facts", item: "{.}", if: "facts.length" },
      ],
    },
    {
      id: "plan-panel",
      title: "plan",
      values: { plan: { latest: "plan" }, cursor: { latest: "cursor", initial: 0 } },
      when: ["plan"],
      blocks: [
        { line: "{plan.thought}", muted: true, if: "plan.thought" },
        { list: "plan.steps", item: "[{kind}] {action}", ordered: true, cursor: "cursor" },
      ],
    },
    {
      title: "vision questions",
      values: { answers: { latest: "answers", initial: [] } },
      when: ["answers.length"],
      blocks: [{ list: "answers", item: "{question} → {answer}" }],
    },
    // The reward terms of the motion in hand.
    {
      id: "motion-panel",
      title: "motion: {motion.step}",
      values: { motion: { latest: "motion" } },
      when: ["motion.terms"],
      blocks: [
        { list: "motion.terms", item: "{.}", code: true },
        { line: "duration {motion.duration} s", muted: true },
      ],
    },
    {
      id: "residuals-panel",
      title: "motions: reward terms and residuals",
      values: { motions: { append: "motionResiduals" } },
      when: ["motions.length"],
      blocks: [
        {
          each: "motions",
          blocks: [
            { line: [{ bold: "{verdict}", good: "ok" }, " step {n}: {what} ({seconds|fixed:2} s)"] },
            {
              table: "residuals",
              class: "residuals",
              columns: [
                { head: "term", cell: [{ code: "{term}" }] },
                { head: "residual", cell: "{residual}", num: true, bad: { path: "met", is: false } },
                { head: "tolerance", cell: "{tolerance}", num: true },
              ],
            },
          ],
        },
      ],
    },
    SKILL_RESULTS_PANEL,
  ],
  fields(steps, worldEvents) {
    let motionIndex = 0;
    return steps.map(({ n: stepNumber, node, update: raw }) => {
      const update = raw as Partial<ReplanStateType>;
      const log = update.log ?? [];
      const motions =
        node === "executor" ? log.filter((x): x is MotionEntry => x.kind === "motion") : ([] as MotionEntry[]);
      const diagnosis = log.filter((x) => x.kind === "diagnosis").at(-1);
      const shown = motions.map((motion) => {
        const at = motion.terms ? motionIndex++ : -1;
        return { motion, at };
      });
      return {
        ...(shown.length
          ? {
              skillResults: shown.map(({ motion }) =>
                skillResult({
                  n: stepNumber,
                  what: motion.step,
                  ok: motion.ok,
                  message: motion.message,
                  seconds: motion.seconds,
                }),
              ),
              motionResiduals: shown
                .filter(({ motion }) => motion.terms)
                .map(({ motion, at }) => ({
                  n: stepNumber,
                  what: motion.step,
                  ok: motion.ok,
                  verdict: motion.ok ? "met" : "not met",
                  seconds: motion.seconds,
                  residuals: residuals(worldEvents, motion, at),
                })),
            }
          : {}),
        ...(diagnosis ? { diagnosisReasons: diagnosis.reasons } : {}),
        ...(update.motion?.terms ? { motion: { ...update.motion, terms: update.motion.terms.map(termShown) } } : {}),
      };
    });
  },
  mark(node, raw) {
    const update = raw as Partial<ReplanStateType>;
    if (node === "executor" && (update.log ?? []).some((x) => x.kind === "motion" && !x.ok)) return "failed";
    if (["diagnose", "remap_reasons", "consolidate"].includes(node)) return "diagnosis";
    return undefined;
  },
};
