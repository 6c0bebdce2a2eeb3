/**
 * The compact view of the world and robots a model is shown (nodes/modelContext.ts) loses nothing: read back by the
 * symbolic reasoner (models/symbolic/view.ts) it is the full description, key for key — the reasoner's seeded draws
 * are keyed on the context it reads, so the same run draws the same faults either way — and it is smaller.
 */
import { tokens } from "../../models/tokens";
import { describe, expect, it } from "vitest";
import { bundledManifests, WorldDescription } from "../../robots/manifests";
import { NAMES } from "../../robots/sim/kitchen/layout";
import { describeScene } from "../../robots/sim/tabletop/scenario";
import { buildScene, SCENE_NAMES } from "../../robots/sim/tabletop/scenes";
import { robotsForModel, worldForModel } from "../../nodes/modelContext";
import { readModelView } from "../../models/symbolic/view";
import { world as bareKitchen } from "../helpers/kitchenWorld";

const size = (x: unknown) => tokens(JSON.stringify(x)).length;

const worlds: [string, WorldDescription, string][] = [
  ["kitchen", WorldDescription.parse({ ...bareKitchen, names: NAMES }), "kitchen"],
  ...SCENE_NAMES.map((scene): [string, WorldDescription, string] => [
    `tabletop ${scene}`,
    WorldDescription.parse(describeScene(buildScene(scene))),
    "tabletop",
  ]),
];

describe("the world and robots as a model is shown them", () => {
  for (const [label, world, robotsOf] of worlds) {
    it(`${label}: read back, the compact view is the full description, in the same key order`, () => {
      const robots = bundledManifests(robotsOf);
      // Without the world at hand, arguments keep their values; the robots' wordings are read back either way.
      const full = { world, robots: readModelView({ robots: robotsForModel(robots) }).robots };
      const compact = { world: worldForModel(world), robots: robotsForModel(robots, world) };
      expect(JSON.stringify(readModelView(compact))).toBe(JSON.stringify(full));
      // The robots' wordings read back are the manifests' own.
      expect(readModelView(compact).robots.map((r) => r.names)).toEqual(robots.map((r) => r.names));
      expect(size(compact)).toBeLessThan(size(full));
    });
  }

  it("names the world's lists an argument takes instead of repeating them, and refuses a list the context lacks", () => {
    // A partial naming (aliases only) stays an object, so it reads back without gaining a display name.
    const partial = { ...worlds[0][1], names: { apple: { aliases: ["red apple"] } } };
    expect(readModelView({ world: worldForModel(partial) }).world.names).toEqual({ apple: { aliases: ["red apple"] } });
    const world = worlds[0][1];
    const [mobile] = robotsForModel(bundledManifests("kitchen"), world);
    const pick = mobile.skills.find((s) => s.name === "pick_from")!;
    expect(pick.parameters.properties.object.enum).toBe("one of world.labels");
    expect(pick.parameters.properties.place.enum).toBe("one of the names in world.places");
    expect(mobile.skills.find((s) => s.name === "open")!.parameters.properties.target.enum).toBe(
      "one of the names in world.places with openable true",
    );
    expect(() => readModelView({ robots: [mobile] })).toThrow(
      /names the list one of .*world\.\w+.*, which the context does not give/,
    );
  });
});
