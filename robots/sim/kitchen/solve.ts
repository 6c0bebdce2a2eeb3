/**
 * Whether a kitchen scenario can be done: a plan written from the true state — what is where, which doors are shut,
 * which robot reaches which place (the mobile robot from the navigation point in front of it, the arm its own four) —
 * run skill by skill on the real world, then the world's own goal check. It knows everything an agent has to find
 * out, so it is for building datasets and for tests only; nothing of it is ever served to an agent.
 */
import { bundledManifests } from "../../manifests";
import { NAVIGATION_POINTS, PLACES } from "./layout";
import type { KitchenScenario } from "./scenario";
import { KitchenWorld, type RobotId } from "./world";

export interface KitchenStep {
  robot: RobotId;
  skill: string;
  args: Record<string, string>;
}

export interface KitchenSolution {
  solvable: boolean;
  steps: KitchenStep[];
  /** Why not, when not. */
  why?: string;
}

const navFor = (place: string) => NAVIGATION_POINTS.find((n) => n.serves === place)?.name;
/** The places the arm reaches, as its manifest states them (`reaches(self, table)` …). */
const ARM_PLACES = (bundledManifests("kitchen").find((m) => m.id === "arm")?.facts ?? []).flatMap(
  (f) => /^reaches\(self, (\w+)\)$/.exec(f)?.[1] ?? [],
);
const reaches = (robot: RobotId, place: string) =>
  robot === "arm" ? ARM_PLACES.includes(place) : navFor(place) !== undefined;

/** Writes the plan from the true starting state (it does not run it). */
export function planKitchen(scenario: KitchenScenario): KitchenStep[] {
  const where = new Map(Object.entries(scenario.placements) as [string, string][]);
  const closed = new Set<string>(
    PLACES.filter((p) => p.openable && !scenario.open.includes(p.name)).map((p) => p.name),
  );
  let mobileAt = scenario.mobileAt;
  const steps: KitchenStep[] = [];
  const go = (robot: RobotId, place: string) => {
    if (robot !== "mobile") return;
    const navPoint = navFor(place)!;
    if (mobileAt !== navPoint) steps.push({ robot, skill: "go_to", args: { navigation_point: navPoint } });
    mobileAt = navPoint;
  };
  const openIfShut = (place: string) => {
    if (!closed.has(place)) return;
    const robot: RobotId = reaches("arm", place) ? "arm" : "mobile";
    go(robot, place);
    steps.push({ robot, skill: "open", args: { target: place } });
    closed.delete(place);
  };
  const carry = (robot: RobotId, object: string, from: string, to: string) => {
    go(robot, from);
    steps.push({ robot, skill: "pick_from", args: { object, place: from } });
    go(robot, to);
    steps.push({ robot, skill: "release_to", args: { object, place: to } });
    where.set(object, to);
  };
  for (const literal of scenario.goal) {
    const match = /^(\w+)\(([^,)]+)(?:, *([^)]+))?\)$/.exec(literal);
    if (!match) throw new Error(`cannot plan for ${literal}`);
    const [, pred, object, to] = match;
    const from = where.get(object);
    if (!from) throw new Error(`${object} is not in the kitchen`);
    if (pred === "found") {
      // In view of a camera: the place open, and the mobile robot in front of it when the arm does not reach it.
      openIfShut(from);
      if (!reaches("arm", from)) go("mobile", from);
      continue;
    }
    if (pred !== "in") throw new Error(`cannot plan for ${literal}`);
    openIfShut(from);
    openIfShut(to);
    const both = (["arm", "mobile"] as const).find((r) => reaches(r, from) && reaches(r, to));
    if (both) carry(both, object, from, to);
    else {
      // Handed over on the table, which both reach.
      const first: RobotId = reaches("arm", from) ? "arm" : "mobile";
      carry(first, object, from, "table");
      carry(first === "arm" ? "mobile" : "arm", object, "table", to);
    }
  }
  return steps;
}

/**
 * The things the goal names that no camera shows where they start, from any place the robots can look from — the arm's
 * camera, and the mobile robot's from each navigation point — with every door and drawer open (a search opens them).
 * An agent cannot find such a thing by looking: a scenario with one is not a fair example.
 */
export async function unseenGoalObjects(scenario: KitchenScenario): Promise<string[]> {
  const wanted = new Set(scenario.goal.map((g) => /^\w+\((\w+)/.exec(g)![1]).filter((o) => o in scenario.placements));
  const world = await KitchenWorld.create({
    scenario: { ...scenario, open: PLACES.filter((p) => p.openable).map((p) => p.name) },
    seed: 0,
    noise: { missRate: 0, mislabelRate: 0 },
  });
  try {
    const seen = new Set<string>();
    const look = async (robot: RobotId) => {
      for (const d of (await world.renderCamera(robot)).detections.detections)
        if (d.location.place === scenario.placements[d.label]) seen.add(d.label);
    };
    await look("arm");
    for (const [i, n] of NAVIGATION_POINTS.entries()) {
      await world.runSkill(
        "mobile",
        "go_to",
        { navigation_point: n.name },
        { goalId: `look-${i}`, signal: new AbortController().signal, feedback: () => {} },
      );
      await look("mobile");
    }
    return [...wanted].filter((o) => !seen.has(o));
  } finally {
    await world.close();
  }
}

/**
 * Plans `scenario` and runs the plan on a kitchen world of its own (seed 0, no detector noise); solvable when the goal
 * holds and every thing the goal names can be seen where it starts (unseenGoalObjects).
 */
export async function solveKitchen(scenario: KitchenScenario): Promise<KitchenSolution> {
  let steps: KitchenStep[];
  try {
    steps = planKitchen(scenario);
  } catch (err) {
    return { solvable: false, steps: [], why: (err as Error).message };
  }
  const unseen = await unseenGoalObjects(scenario);
  if (unseen.length)
    return {
      solvable: false,
      steps,
      why: `no camera sees the ${unseen.join(" or the ")} where it starts, from anywhere the robots can look from`,
    };
  const world = await KitchenWorld.create({ scenario: scenario, seed: 0, noise: { missRate: 0, mislabelRate: 0 } });
  try {
    const look = async () => {
      for (const r of ["mobile", "arm"] as const) await world.renderCamera(r);
    };
    await look();
    for (const [i, step] of steps.entries()) {
      const out = await world.runSkill(step.robot, step.skill, step.args, {
        goalId: `solve-${i}`,
        signal: new AbortController().signal,
        feedback: () => {},
      });
      if (out.status !== "succeeded")
        return {
          solvable: false,
          steps,
          why: `step ${i + 1} (${step.robot} ${step.skill} ${JSON.stringify(step.args)}) ${out.status}: ${(out.values as { message?: string }).message}`,
        };
      await look();
    }
    const evaluation = world.evaluate();
    return evaluation.success
      ? { solvable: true, steps }
      : {
          solvable: false,
          steps,
          why: `the goal does not hold after the plan: ${evaluation.goal
            .filter((g) => !g.holds)
            .map((g) => g.literal)
            .join(", ")}`,
        };
  } finally {
    await world.close();
  }
}
