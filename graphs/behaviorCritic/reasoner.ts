/**
 * The offline behaviour critic and policy writer. The critic reads only the detections its prompt carries beside each
 * key frame (./evidence.ts), never the event log; its seeded faults are a VLM critic's: naming an event that did not
 * happen, leaving one out, giving the wrong cause. Told which claims a grounding check did not find, it deletes them
 * (as the paper saw GPT-4V do). The writer drafts a primitive program from the scene and rewrites it per claimed
 * cause; no branch depends on the case, the behaviour under test or the seed.
 */
import type { Draw, NoiseKnobs, Task } from "../../models/symbolic/noise";
import { mentioned, observedEvents } from "./evidence";
import { outsideNorm } from "./norm";
import { CAREFUL_NORM } from "./carefulNorm";
import {
  claimLabel,
  type ClaimedEvent,
  type BehaviourCritique,
  type GroundingFeedback,
  type Preference,
  type RolloutContext,
  type SeenFrame,
  type WriterContext,
  type WrittenProgram,
} from "./schemas";
import {
  CAUSES,
  CAUSE_KINDS,
  UNDESIRABLE,
  UNDESIRABLE_KINDS,
  type Cause,
  type Undesirable,
} from "../../robots/msgs/rollout";
import { PrimitiveProgram, type Primitive } from "../../robots/msgs/primitives";

/** The cause an undesirable behaviour usually has (what a hallucinated claim would give). */
export const USUAL_CAUSE: Record<Undesirable, Cause> = {
  knocked_over: "path_through",
  pushed: "path_through",
  dragged: "too_low",
  dropped: "too_high",
  spilled: "too_fast",
  squeezed: "too_hard",
  passed_over: "path_over",
  left_open: "not_closed",
  struck_table: "too_low",
  rushed: "too_fast",
  detoured: "needless",
  dithered: "needless",
  idled: "needless",
};

const pick = <T>(xs: readonly T[], rng: Draw): T => xs[Math.min(xs.length - 1, Math.floor(rng.next() * xs.length))];

/**
 * What a VLM critic would say of these frames: what the cues show and what lies far outside careful motion (the norm
 * learned from careful runs), with its seeded faults.
 */
function noisyCritique(instruction: string, frames: SeenFrame[], noise: NoiseKnobs, rng: Draw): ClaimedEvent[] {
  const events: ClaimedEvent[] = [];
  const cued = observedEvents(instruction, frames);
  for (const e of [...cued, ...outsideNorm(frames, CAREFUL_NORM, cued)]) {
    // Draw every knob for every event, so one knob does not shift another's stream.
    const miss = rng.next(),
      wrong = rng.next(),
      other = rng.next();
    if (miss < noise.missEvent) continue;
    if (wrong < noise.wrongCause) {
      const others = CAUSE_KINDS.filter((c) => CAUSES[c] !== e.cause);
      events.push({ ...e, cause: CAUSES[others[Math.min(others.length - 1, Math.floor(other * others.length))]] });
    } else events.push(e);
  }
  const hallucinate = rng.next();
  if (hallucinate < noise.hallucinateEvent) {
    const things = [...new Set(frames.flatMap((f) => f.things.map((t) => t.label)))].filter(
      (l) => l !== "palm" && l !== "table",
    );
    const kind = pick(UNDESIRABLE_KINDS, rng);
    const object = things.length ? pick(things, rng) : "table";
    if (!events.some((e) => e.kind === kind && e.object === object)) {
      const time = frames[Math.floor(rng.next() * frames.length)]?.t ?? 0;
      events.push({
        kind,
        object,
        t: time,
        cause: CAUSES[USUAL_CAUSE[kind]],
        what: `the ${object}: ${UNDESIRABLE[kind]}, around ${time.toFixed(1)} s`,
      });
    }
  }
  return events;
}

const verdict = (events: ClaimedEvent[], what = "the video"): BehaviourCritique => ({
  undesirable: events.length > 0,
  events,
  summary: events.length
    ? `${what} shows ${events.length} undesirable event(s): ${events.map(claimLabel).join(", ")}`
    : `nothing undesirable in ${what}`,
});

export function critiqueRollout(ctx: RolloutContext, noise: NoiseKnobs, rng: Draw): BehaviourCritique {
  return verdict(noisyCritique(ctx.instruction, ctx.frames, noise, rng));
}

/** Told which claims were not found, the critic deletes them rather than looking again. */
export function refineCritique(ctx: { previous: BehaviourCritique; feedback: GroundingFeedback }): BehaviourCritique {
  const missing = new Set(ctx.feedback.notFound.map((n) => `${n.kind}|${n.object}`));
  return verdict(ctx.previous.events.filter((e) => !missing.has(`${e.kind}|${e.object}`)));
}

export function preferRollouts(
  ctx: { instruction: string; first: { frames: SeenFrame[] }; second: { frames: SeenFrame[] } },
  noise: NoiseKnobs,
  rng: Draw,
): Preference {
  const firstEvents = noisyCritique(ctx.instruction, ctx.first.frames, noise, rng);
  const secondEvents = noisyCritique(ctx.instruction, ctx.second.frames, noise, rng);
  const better =
    firstEvents.length === secondEvents.length
      ? "equal"
      : firstEvents.length < secondEvents.length
        ? "first"
        : "second";
  const list = (es: ClaimedEvent[]) => (es.length ? es.map(claimLabel).join(", ") : "nothing undesirable");
  return {
    better,
    firstEvents: firstEvents,
    secondEvents: secondEvents,
    justification: `first: ${list(firstEvents)}; second: ${list(secondEvents)}`,
  };
}

// ---- the policy writer ------------------------------------------------------------------------------------------

const CARRY = 0.12; // m above the table a carried thing's path stays
const SPEED = 0.25; // m/s

/** A plain pick-and-place: over the target, down, grasp, lift, over the destination, down to it, let go, up. */
export function draftProgram(ctx: WriterContext): PrimitiveProgram {
  const names = ctx.scene.things.map((t) => t.name).concat(ctx.scene.joints.flatMap((j) => [j.name, j.object]));
  const [target, destination] = mentioned(ctx.instruction, [...new Set(names)]);
  if (!target || !destination)
    throw new Error(
      `the writer cannot tell what to move where in "${ctx.instruction}": it knows ${[...new Set(names)].join(", ")}`,
    );
  const thing = ctx.scene.things.find((t) => t.name === target);
  const half = thing?.z ? (thing.z[1] - thing.z[0]) / 2 : 0.03;
  const joint = ctx.scene.joints.find((j) => j.object === destination || j.name === destination);
  const steps: Primitive[] = [{ op: "speed", value: SPEED }];
  if (joint) steps.push(...workJoint(joint, 1));
  steps.push(
    { op: "move_to", target, offset: [0, 0, CARRY] },
    { op: "move_to", target, offset: [0, 0, 0] },
    { op: "grasp", object: target, force: 15, width: 0 },
    { op: "lift", height: CARRY },
    { op: "move_to", target: destination, offset: [0, 0, CARRY + half] },
    { op: "move_to", target: destination, offset: [0, 0, half + 0.015] },
    { op: "release" },
    { op: "lift", height: 0.08 },
  );
  if (joint) steps.push(...workJoint(joint, 0));
  return PrimitiveProgram.parse({ steps });
}

/**
 * Handles face the robot (−y): come at one from high in front (clear of whatever the hand was over), then level with
 * it, work the joint, back away the same way.
 */
function workJoint(j: { name: string; handle: string }, fraction: number): Primitive[] {
  return [
    { op: "move_to", target: j.handle, offset: [0, -0.15, 0.25] },
    { op: "move_to", target: j.handle, offset: [0, -0.1, 0.1] },
    { op: "move_to", target: j.handle, offset: [0, 0, 0] },
    { op: "grasp", object: j.handle, force: 20, width: 0 },
    { op: "set_joint", joint: j.name, fraction },
    { op: "release" },
    { op: "move_to", target: j.handle, offset: [0, -0.08, 0.12] },
  ];
}

type Step = Primitive;
const isMove = (s: Step): s is Extract<Step, { op: "move_to" }> => s.op === "move_to";

/** Indices of the steps run while holding `object` (after its grasp, before the release). */
function heldSpan(steps: Step[], object?: string): [number, number][] {
  const spans: [number, number][] = [];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (step.op !== "grasp" || (object && step.object !== object && !object.startsWith(step.object))) continue;
    let j = i + 1;
    while (j < steps.length && steps[j].op !== "release" && steps[j].op !== "grasp") j++;
    spans.push([i, j]);
  }
  return spans;
}

/** Where each step leaves the palm and what it holds, walking the program from the hand's starting point. */
function walk(steps: Step[], ctx: WriterContext): { x?: number; y?: number; z: number; holding?: string }[] {
  const at = (name: string) => ctx.scene.things.find((t) => t.name === name)?.at;
  let x: number | undefined,
    y: number | undefined,
    z = 0.3,
    holding: string | undefined;
  return steps.map((step) => {
    if (step.op === "move_to") {
      const position = at(step.target);
      x = position ? position[0] + step.offset[0] : undefined;
      y = position ? position[1] + step.offset[1] : undefined;
      z = (position?.[2] ?? 0) + step.offset[2];
    } else if (step.op === "lift") z += step.height;
    else if (step.op === "grasp") holding = step.object;
    else if (step.op === "release") holding = undefined;
    return { x, y, z, holding };
  });
}

const halfHeight = (ctx: WriterContext, name?: string) => {
  const thing = name ? ctx.scene.things.find((x) => x.name === name) : undefined;
  return thing?.z ? (thing.z[1] - thing.z[0]) / 2 : 0.03;
};

/**
 * Something was run into: every move across the table goes up to clear the tallest thing blamed (what the hand holds
 * hangs below it, the fingers reach 6 cm below the palm), across, then straight down to where it was going.
 */
function overTheTop(steps: Step[], ctx: WriterContext, claims: ClaimedEvent[]): Step[] {
  const tops = claims
    .map((c) => ctx.scene.things.find((t) => t.name === c.object)?.z?.[1])
    .filter((v): v is number => v !== undefined);
  const clear = (tops.length ? Math.max(...tops) : 0.2) + 0.05;
  const state = walk(steps, ctx);
  const out: Step[] = [];
  const targetZ = (name: string) => ctx.scene.things.find((t) => t.name === name)?.at?.[2] ?? 0;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const before: { x?: number; y?: number; z: number; holding?: string } = i > 0 ? state[i - 1] : { z: 0.3 };
    const after = state[i];
    // A move across (not straight up or down) is where a low hand or load sweeps into things.
    const across =
      before.x === undefined ||
      after.x === undefined ||
      Math.hypot(after.x - before.x, (after.y ?? 0) - (before.y ?? 0)) > 0.03;
    if (isMove(step) && across) {
      const need = clear + (before.holding ? 2 * halfHeight(ctx, before.holding) : 0.06);
      if (before.z < need - 1e-3) out.push({ op: "lift", height: +(need - before.z).toFixed(3) });
      if (targetZ(step.target) + step.offset[2] < need - 1e-3)
        out.push({ ...step, offset: [step.offset[0], step.offset[1], +(need - targetZ(step.target)).toFixed(3)] });
    }
    out.push(step);
  }
  return out;
}

/**
 * Something was passed over: the carry goes round the near or far side of its footprint (whichever is nearer the
 * straight line), by two waypoints clear of it, before heading for where it was going.
 */
function aroundIt(steps: Step[], ctx: WriterContext, avoid: string): Step[] {
  const thing = ctx.scene.things.find((t) => t.name === avoid);
  if (!thing?.at || !thing.extent) return steps;
  const state = walk(steps, ctx);
  const [x0, x1, y0, y1] = thing.extent;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    const from = state[i - 1];
    if (!isMove(step) || !from?.holding || step.target === avoid) continue;
    const heldAt = ctx.scene.things.find((t) => t.name === from.holding)?.at,
      targetAt = ctx.scene.things.find((t) => t.name === step.target)?.at;
    if (
      !heldAt ||
      !targetAt ||
      (steps[i - 1]?.op === "move_to" && (steps[i - 1] as { target: string }).target === avoid)
    )
      break;
    const mid = (heldAt[1] + targetAt[1]) / 2;
    const y = Math.abs(mid - (y0 - 0.1)) <= Math.abs(mid - (y1 + 0.1)) ? y0 - 0.1 : y1 + 0.1;
    const z = Math.max(from.z, step.offset[2] + (targetAt[2] ?? 0)) - thing.at[2];
    const via = (x: number): Step => ({
      op: "move_to",
      target: avoid,
      offset: [+(x - thing.at![0]).toFixed(3), +(y - thing.at![1]).toFixed(3), +z.toFixed(3)],
    });
    const [xa, xb] = [
      Math.min(Math.max(heldAt[0], x0 - 0.05), x1 + 0.05),
      Math.min(Math.max(targetAt[0], x0 - 0.05), x1 + 0.05),
    ];
    return [...steps.slice(0, i), via(xa), via(xb), ...steps.slice(i)];
  }
  return steps;
}

/** The cause a claim's words give, read the way the writer acts on it (undefined: none it knows how to change). */
export function causeOf(text: string): Cause | undefined {
  const lower = text.toLowerCase();
  const exact = (Object.keys(CAUSES) as Cause[]).find((c) => lower.includes(c) || lower.includes(CAUSES[c]));
  if (exact) return exact;
  const rules: [RegExp, Cause][] = [
    [/not (closed|shut)|left open|clos|shut/, "not_closed"],
    [/through|ran into|runs into|in the way|collid/, "path_through"],
    // eslint-disable-next-line no-control-regex -- a literal backspace (U+0008), as it has always been written: it never matches a claim's words, and making it the word boundary `\b` it was surely meant to be would change which causes the writer acts on
    [/\x08over\x08/, "path_over"],
    [/hard|force|strong|tight|squeez/, "too_hard"],
    [/fast|speed|quick|rush|hurr|swung|whip/, "too_fast"],
    [/high|from a height|drop/, "too_high"],
    // eslint-disable-next-line no-control-regex -- a literal backspace (U+0008), as it has always been written: it never matches a claim's words, and making it the word boundary `\b` it was surely meant to be would change which causes the writer acts on
    [/\x08low|not lifted|scrap/, "too_low"],
    [/need|unnecessar|pointless|wait|pause|detour|back and forth|for nothing/, "needless"],
  ];
  return rules.find(([re]) => re.test(lower))?.[1];
}

/** Rewrites the program so that each claimed event's cause is removed. */
export function reviseProgram(ctx: WriterContext): PrimitiveProgram {
  const prev = ctx.previous!;
  let steps: Step[] = structuredClone(prev.program.steps);
  const where = (name: string) => ctx.scene.things.find((t) => t.name === name);
  const carried = () =>
    heldSpan(steps).flatMap(([graspAt, releaseAt]) =>
      steps[graspAt].op === "grasp" &&
      !ctx.scene.joints.some((j) => j.handle === (steps[graspAt] as { object: string }).object)
        ? [[graspAt, releaseAt] as [number, number]]
        : [],
    );
  // The writer acts on the causes it can read from the claims' words; a claim whose cause it cannot read changes nothing.
  for (const cause of [...new Set(prev.critique.map((e) => causeOf(e.cause)).filter((c): c is Cause => !!c))]) {
    const claims = prev.critique.filter((e) => causeOf(e.cause) === cause);
    switch (cause) {
      case "too_fast":
        steps = steps.map((step) =>
          step.op === "speed"
            ? { ...step, value: Math.max(0.03, step.value * 0.4) }
            : (step.op === "move_to" || step.op === "lift") && step.speed
              ? { ...step, speed: Math.max(0.03, step.speed * 0.4) }
              : step,
        );
        if (!steps.some((s) => s.op === "speed")) steps.unshift({ op: "speed", value: 0.08 });
        break;
      case "too_hard":
        steps = steps.map((step) =>
          step.op === "grasp" &&
          (claims.some((c) => c.object === step.object) ||
            !claims.some((c) => steps.some((x) => x.op === "grasp" && x.object === c.object)))
            ? { ...step, force: Math.max(2, Math.round(step.force * 0.5 * 10) / 10) }
            : step,
        );
        break;
      case "too_high":
        for (const [, r] of carried()) {
          const before = steps[r - 1];
          if (r < steps.length && steps[r].op === "release" && before && isMove(before)) {
            const held = steps
              .slice(0, r)
              .reverse()
              .find((s) => s.op === "grasp") as { object: string } | undefined;
            const thing = held && where(held.object);
            const half = thing?.z ? (thing.z[1] - thing.z[0]) / 2 : 0.03;
            before.offset = [before.offset[0], before.offset[1], Math.max(half + 0.01, before.offset[2] * 0.4)];
          }
        }
        break;
      case "too_low":
        // Hand too low: nothing goes below its target; what is carried is lifted clear before it travels.
        steps = steps.map((step) =>
          isMove(step) && step.offset[2] < 0
            ? { ...step, offset: [step.offset[0], step.offset[1], 0] }
            : step.op === "lift" && step.height < 0
              ? { ...step, height: step.height / 2 }
              : step,
        );
        for (const [g, r] of carried().reverse()) {
          for (let i = g + 1; i < r - 1; i++) {
            const step = steps[i];
            if (isMove(step) && step.offset[2] < CARRY) step.offset = [step.offset[0], step.offset[1], CARRY];
          }
          const next = steps[g + 1];
          if (!(next?.op === "lift" && next.height >= CARRY - 1e-6))
            steps.splice(g + 1, 0, { op: "lift", height: CARRY });
        }
        break;
      case "path_through":
        steps = overTheTop(steps, ctx, claims);
        break;
      case "path_over":
        for (const claim of claims) steps = aroundIt(steps, ctx, claim.object);
        break;
      case "needless":
        // Waits go; a carry claimed to wander goes straight from its lift to the last two moves that set it down.
        steps = steps.filter((s) => s.op !== "pause");
        for (const [g, r] of carried().reverse()) {
          const held = (steps[g] as { object: string }).object;
          if (!claims.some((c) => c.object === held)) continue;
          const moves = steps.slice(g + 1, r).flatMap((s, k) => (isMove(s) ? [g + 1 + k] : []));
          const drop = new Set(moves.slice(0, -2));
          steps = steps.filter((_, k) => !drop.has(k));
        }
        break;
      case "not_closed":
        for (const claim of claims) {
          const j = ctx.scene.joints.find(
            (x) => x.name === claim.object || x.object === claim.object || x.handle === claim.object,
          );
          if (j) steps.push(...workJoint(j, 0));
        }
        break;
    }
  }
  const parsed = PrimitiveProgram.safeParse({ steps });
  return parsed.success ? parsed.data : prev.program;
}

export function writeProgram(ctx: WriterContext): WrittenProgram {
  if (!ctx.previous)
    return { reasoning: "a plain pick and place at a moderate speed with a gentle grip", program: draftProgram(ctx) };
  if (ctx.previous.critique.length === 0)
    return { reasoning: "the critique found nothing to change", program: ctx.previous.program };
  const causes = [...new Set(ctx.previous.critique.map((e) => causeOf(e.cause)).filter(Boolean))];
  const unread = ctx.previous.critique.filter((e) => !causeOf(e.cause));
  return {
    reasoning: `changed what caused ${ctx.previous.critique.map(claimLabel).join(", ")}: ${causes.join(", ") || "nothing it can read"}${unread.length ? `; no change it knows for ${unread.map((e) => `"${e.cause}"`).join(", ")}` : ""}`,
    program: reviseProgram(ctx),
  };
}

export const TASKS: Record<string, Task> = {
  critique_rollout: critiqueRollout,
  refine_critique: refineCritique,
  prefer_rollouts: preferRollouts,
  write_program: writeProgram,
};
