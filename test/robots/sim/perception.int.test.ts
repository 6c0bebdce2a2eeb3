/** The camera and the simulated detector: boxes match the segmentation, closed containers hide what is inside. */
import { afterEach, describe, expect, it } from "vitest";
import { KitchenWorld, loadScenario } from "../../../robots/sim/kitchen";

const worlds: KitchenWorld[] = [];
afterEach(async () => {
  while (worlds.length) await worlds.pop()!.close();
});
async function world(scenario: string, opts: Partial<Parameters<typeof KitchenWorld.create>[0]> = {}) {
  const kitchen = await KitchenWorld.create({ scenario: loadScenario(scenario), ...opts });
  worlds.push(kitchen);
  return kitchen;
}
const ctx = () => ({ goalId: `g${Math.random()}`, signal: new AbortController().signal, feedback: () => {} });

describe("camera and detector", () => {
  it("a detection's box covers exactly the pixels of that object in the segmentation", async () => {
    const kitchen = await world("integration_tea_to_trash");
    await kitchen.runSkill("arm", "open", { target: "drawer_top" }, ctx());
    for (const robot of ["arm", "mobile"] as const) {
      const out = await kitchen.renderCamera(robot);
      expect(out.detections.detections.length).toBeGreaterThan(0);
      for (const d of out.detections.detections) {
        let inside = 0;
        let total = 0;
        for (let i = 0; i < out.frame.geom.length; i++) {
          if (kitchen.objectAtPixel(out.frame, i) !== d.label) continue;
          total++;
          const x = i % out.frame.width;
          const y = Math.floor(i / out.frame.width);
          if (x >= d.box.x && x < d.box.x + d.box.w && y >= d.box.y && y < d.box.y + d.box.h) inside++;
        }
        expect(total).toBeGreaterThan(0);
        expect(inside).toBe(total);
        // And the box is tight: its edges touch the object's pixels.
        const onEdge = (x: number, y: number) => kitchen.objectAtPixel(out.frame, y * out.frame.width + x) === d.label;
        let left = false;
        for (let y = d.box.y; y < d.box.y + d.box.h; y++) left ||= onEdge(d.box.x, y);
        expect(left).toBe(true);
      }
    }
  });

  it("never detects the contents of a closed container, and sees them once it is open", async () => {
    const kitchen = await world("integration_tea_to_trash");
    await kitchen.runSkill("mobile", "go_to", { navigation_point: "in_front_of_refrigerator" }, ctx());
    const closed = await kitchen.renderCamera("mobile");
    expect(closed.detections.detections).toEqual([]);
    expect(closed.detections.places).toContainEqual(expect.objectContaining({ name: "refrigerator", state: "closed" }));
    for (let i = 0; i < closed.frame.geom.length; i++) expect(kitchen.objectAtPixel(closed.frame, i)).toBeNull();

    await kitchen.runSkill("mobile", "open", { target: "refrigerator" }, ctx());
    const open = await kitchen.renderCamera("mobile");
    expect(open.detections.detections.map((d) => d.label).sort()).toEqual(["bottle_of_tea", "milk"]);
    expect(open.detections.places).toContainEqual(expect.objectContaining({ name: "refrigerator", state: "open" }));

    // The drawers' contents are likewise hidden from the arm until a drawer is pulled out.
    const arm = await kitchen.renderCamera("arm");
    expect(arm.detections.detections.map((d) => d.label)).not.toContain("bread");
    expect(arm.detections.detections.map((d) => d.label)).not.toContain("green_medication");
  });

  it("locates a detection from its own depth pixels: a thing moved without the world's bookkeeping is reported where it is seen", async () => {
    const kitchen = await world("integration_tea_to_trash");
    const arm = async () => (await kitchen.renderCamera("arm")).detections.detections;
    expect((await arm()).find((d) => d.label === "bottle_of_tea")).toBeUndefined();
    // Put the tea on the table by hand, behind the world's back: the world still keeps it in the refrigerator.
    (kitchen as unknown as { setMocap(body: string, p: number[]): void }).setMocap(
      "obj_bottle_of_tea",
      [0.4, 0.17, 0.85],
    );
    expect(kitchen.evaluate().state.bottle_of_tea).toMatch(/refrigerator/);
    expect((await arm()).find((d) => d.label === "bottle_of_tea")?.location).toEqual({
      relation: "on",
      place: "table",
    });
  });

  it("held_by comes from the robot's own hand and what its camera sees there: a grasp on nothing shows nothing held", async () => {
    const kitchen = await world("integration_tea_to_trash", { graspSensing: false });
    const held = async () =>
      (await kitchen.renderCamera("arm")).detections.detections.filter((d) => d.location.relation === "held_by");
    await kitchen.runSkill("arm", "open", { target: "drawer_top" }, ctx());
    // Without grasp sensing a pick where nothing is reports success, and the hand is closed; the camera shows it empty.
    const empty = await kitchen.runSkill("arm", "pick_from", { object: "apple", place: "drawer_top" }, ctx());
    expect(empty.status).toBe("succeeded");
    expect(await held()).toEqual([]);
    await kitchen.runSkill("arm", "release_to", { object: "apple", place: "trash_can" }, ctx());
    await kitchen.runSkill("arm", "pick_from", { object: "bread", place: "drawer_top" }, ctx());
    expect((await held()).map((d) => [d.label, d.location])).toEqual([
      ["bread", { relation: "held_by", place: "arm" }],
    ]);
    // The same bread where the closed hand is not: seen on the table, whatever the world's bookkeeping says.
    (kitchen as unknown as { setMocap(body: string, p: number[]): void }).setMocap("obj_bread", [0, 0.17, 0.8]);
    expect(kitchen.evaluate().state.bread).toMatch(/arm/);
    expect(await held()).toEqual([]);
  });

  it("says a door is open or closed from the door's own pixels", async () => {
    const kitchen = await world("integration_tea_to_trash");
    await kitchen.runSkill("mobile", "go_to", { navigation_point: "in_front_of_refrigerator" }, ctx());
    const state = async () =>
      (await kitchen.renderCamera("mobile")).detections.places.find((p) => p.name === "refrigerator")?.state;
    expect(await state()).toBe("closed");
    await kitchen.runSkill("mobile", "open", { target: "refrigerator" }, ctx());
    expect(await state()).toBe("open");
    await kitchen.runSkill("mobile", "close", { target: "refrigerator" }, ctx());
    expect(await state()).toBe("closed");
  });

  it("produces depth consistent with the camera's height", async () => {
    const kitchen = await world("integration_tea_to_trash");
    const out = await kitchen.renderCamera("arm");
    // The overhead camera looks straight down from 2.4 m onto the arm's resting gripper (a 3.5 cm sphere at 1.15 m).
    const centre = out.frame.depth[(out.frame.height / 2) * out.frame.width + out.frame.width / 2];
    expect(centre).toBeCloseTo(2.4 - 1.15 - 0.035, 2);
    // A corner pixel sees the floor or furniture: farther than the gripper, and never beyond the floor's slant distance.
    const corner = out.frame.depth[5 * out.frame.width + 5];
    expect(corner).toBeGreaterThan(centre);
    expect(corner).toBeLessThan(2.4 / Math.cos(Math.atan(Math.hypot(1, 0.75))) + 0.01);
  });

  it("noise is seeded: the same seed misses and mislabels the same detections, another seed differs", async () => {
    const labels = async (seed: number) => {
      const kitchen = await world("search_pills_and_apple", { seed, noise: { missRate: 0.3, mislabelRate: 0.3 } });
      const out: string[] = [];
      for (let i = 0; i < 8; i++)
        out.push(
          (await kitchen.renderCamera(i % 2 ? "arm" : "mobile")).detections.detections.map((d) => d.label).join(","),
        );
      return out.join("|");
    };
    const seeded = await labels(7);
    expect(await labels(7)).toBe(seeded);
    const others = await Promise.all([1, 2, 3].map(labels));
    expect(others.some((o) => o !== seeded)).toBe(true);
    const clean = await world("search_pills_and_apple");
    expect((await clean.renderCamera("mobile")).detections.detections.map((d) => d.label)).toEqual(["orange"]);
  });
});
