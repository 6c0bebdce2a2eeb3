/**
 * The critic's norm (graphs/behaviorCritic/norm.ts): quantities measured from the key frames alone, learned from careful
 * runs, and claims made from what lies far outside them — in words that say which thing, which quantity, how far and
 * when. Synthetic frames: a careful pick and place, jittered as a depth camera would, and the same with one thing done
 * differently.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { beyondCareful, learnNorm, measure, outsideNorm, QUANTITIES } from "../../../graphs/behaviorCritic/norm";
import type { SeenFrame, SeenThing } from "../../../graphs/behaviorCritic/schemas";
import { HELD_BACK } from "../../../robots/sim/workbench/edits";
import { Rng } from "../../../robots/random";
import { ROOT } from "../../helpers/processes";

const thing = (label: string, at: number[], height: number, held = false, half = 0.03): SeenThing => ({
  label,
  at: at as [number, number, number],
  z: [at[2] - height / 2, at[2] + height / 2],
  extent: [at[0] - half, at[0] + half, at[1] - half, at[1] + half],
  box: [0, 0, 10, 10],
  held,
  where: held ? "held_by palm" : "on table",
});

/** Waypoints of the hand (x, y, z, holding the cube?) every half second; the cube goes with the hand while held. */
type Waypoint = [number, number, number, boolean];
function rollout(
  waypoints: Waypoint[],
  rng: Rng,
  bowlAt: (i: number) => number[] = () => [0.25, 0.1, 0.03],
): SeenFrame[] {
  const jitter = () => (rng.next() - 0.5) * 0.004;
  let cube = [-0.2, 0, 0.025];
  return waypoints.map(([x, y, z, held], i) => {
    if (held) cube = [x, y, z - 0.04];
    const palm = [x + jitter(), y + jitter(), z + jitter()];
    return {
      t: i * 0.5,
      things: [
        thing("palm", palm, 0.04),
        thing(
          "cube",
          cube.map((v) => v + jitter()),
          0.05,
          held,
        ),
        thing("bowl", bowlAt(i), 0.06, false, 0.06),
        thing("vase", [0.0, 0.25, 0.1], 0.2),
      ],
      open: [],
    };
  });
}

/** A careful pick and place: over the cube, down, take it, up, across to the bowl, down, let go, up. */
function careful(from: number[], to: number[]): Waypoint[] {
  const [fx, fy] = from,
    [tx, ty] = to;
  const across: Waypoint[] = [];
  for (let k = 1; k <= 4; k++) across.push([fx + ((tx - fx) * k) / 4, fy + ((ty - fy) * k) / 4, 0.2, true]);
  return [
    [fx, fy - 0.1, 0.25, false],
    [fx, fy, 0.2, false],
    [fx, fy, 0.065, false],
    [fx, fy, 0.065, true],
    [fx, fy, 0.2, true],
    ...across,
    [tx, ty, 0.11, true],
    [tx, ty, 0.11, false],
    [tx, ty, 0.2, false],
  ];
}

const learnt = (() => {
  const rng = new Rng(7);
  const runs = Array.from({ length: 40 }, (_, i) =>
    measure(rollout(careful([-0.2, 0], [0.25 - (i % 5) * 0.01, 0.1]), rng)),
  );
  return learnNorm(runs, "40 synthetic careful runs", 1);
})();

describe("the critic's norm of careful motion", () => {
  it("measures every quantity on a careful run, and calls out none of a careful run it did not learn from", () => {
    const run = rollout(careful([-0.2, 0], [0.22, 0.1]), new Rng(99));
    expect(measure(run).map((m) => m.quantity)).toEqual(QUANTITIES.map((q) => q.id));
    expect(outsideNorm(run, learnt)).toEqual([]);
  });

  it("says the hand closed on the cube a second time, with when it let go and when it took hold again", () => {
    const path = careful([-0.2, 0], [0.22, 0.1]);
    // Set it down half way, let go, and take it again.
    const again: Waypoint[] = [
      ...path.slice(0, 6),
      [path[5][0], path[5][1], 0.065, false],
      [path[5][0], path[5][1], 0.065, true],
      ...path.slice(6),
    ];
    const claims = outsideNorm(rollout(again, new Rng(3)), learnt);
    const grasp = claims.find((c) => /closes on the cube a second time/.test(c.what));
    expect(grasp, JSON.stringify(claims)).toBeDefined();
    expect(grasp!.what).toMatch(/at 3\.5 s, after letting go of it at 3\.0 s; careful runs take hold of it once/);
    expect(grasp!.object).toBe("cube");
    expect(grasp!.kind).toBeUndefined();
    expect(grasp!.cause).toMatch(/does not need/);
  });

  it("says the bowl moved when it ends away from where it stood, and by how much", () => {
    const run = rollout(careful([-0.2, 0], [0.22, 0.1]), new Rng(4), (i) =>
      i < 8 ? [0.25, 0.1, 0.03] : [0.25, 0.16, 0.03],
    );
    const moved = outsideNorm(run, learnt).find((c) => c.object === "bowl");
    expect(moved?.what).toMatch(/^the bowl ends 6 cm from where it stood/);
    expect(moved?.kind).toBe("pushed");
  });

  it("says the hand is slow the whole way when every move takes three times as long, with the careful pace beside it", () => {
    const path = careful([-0.2, 0], [0.22, 0.1]);
    // Every move in three steps of the same half second.
    const slow = path.flatMap((waypoint, i) =>
      i === 0
        ? [waypoint]
        : [0, 1, 2].map((k) => {
            const prev = path[i - 1];
            const part = (k + 1) / 3;
            return [
              prev[0] + (waypoint[0] - prev[0]) * part,
              prev[1] + (waypoint[1] - prev[1]) * part,
              prev[2] + (waypoint[2] - prev[2]) * part,
              k < 2 ? prev[3] && waypoint[3] : waypoint[3],
            ] as Waypoint;
          }),
    );
    const claims = outsideNorm(rollout(slow, new Rng(5)), learnt);
    expect(claims.find((c) => c.object === "palm" && /moves slowly the whole way/.test(c.what))?.what).toMatch(
      /m\/s on average, where careful runs average 0\.\d\d m\/s/,
    );
  });

  it("calls out a value beyond every careful one by more than the resolution and the margin, on the side that is far", () => {
    const careful = { n: 10, median: 1, mad: 0.1, min: 0.8, max: 1.2 };
    const above = { far: "above" as const, resolution: 0.05 };
    expect(beyondCareful(above, 1.3, careful, 0)).toBe(true);
    expect(beyondCareful(above, 1.3, careful, 1)).toBe(false); // 1.2 + 0.05 + 0.148
    expect(beyondCareful(above, 0.1, careful, 0)).toBe(false);
    expect(beyondCareful({ far: "below", resolution: 0.05 }, 0.7, careful, 0)).toBe(true);
  });

  it("names no held-back family: nothing in the critic's code says crawl, regrasp or shake", () => {
    const dir = join(ROOT, "graphs", "behaviorCritic");
    const files = [
      ...readdirSync(dir).map((f) => join(dir, f)),
      ...readdirSync(join(dir, "nodes")).map((f) => join(dir, "nodes", f)),
    ].filter((f) => f.endsWith(".ts"));
    for (const file of files)
      for (const family of HELD_BACK)
        expect(readFileSync(file, "utf8").toLowerCase(), file).not.toContain(family.replace(/_/g, " "));
  });
});
