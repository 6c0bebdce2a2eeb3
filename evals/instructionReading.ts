/**
 * The offline reader scored on its own, without a simulator: each row's instruction read into a goal with the world
 * description a simulator publishes (its names and their wordings) and the robots' manifests, compared with the row's
 * goal. Fast enough for a unit test, and the figure docs/instructions.md gives for the tune and held-back sets.
 *
 *     npx tsx evals/instructionReading.ts instructions-tune instructions-heldout
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { readInstruction, lexicon, notUnderstoodMessage } from "../models/reasoning/language";
import { goalLiterals, readTabletopGoal } from "../models/symbolic/replan";
import { WorldDescription } from "../robots/manifests/schema";
import { bundledManifests } from "../robots/manifests";
import { NAMES, NAVIGATION_POINTS, OBJECTS, PLACES } from "../robots/sim/kitchen/layout";
import { describeScene } from "../robots/sim/tabletop/scenario";
import { buildScene, type SceneName } from "../robots/sim/tabletop/scenes";
import { datasetPath, loadDataset, type DatasetRow } from "./datasets";

/** The kitchen as its simulator describes it (KitchenWorld.description), without starting the simulator. */
export const kitchenDescription = (): WorldDescription =>
  WorldDescription.parse({
    name: "kitchen",
    places: PLACES.map((p) => ({ name: p.name, kind: p.kind, openable: p.openable, capacity: p.slots.length })),
    navigationPoints: NAVIGATION_POINTS.map((n) => n.name),
    labels: OBJECTS.map((o) => o.name),
    names: NAMES,
  });

const sceneDescription = (scene: string) => WorldDescription.parse(describeScene(buildScene(scene as SceneName)));

export interface Reading {
  id: string;
  text: string;
  ok: boolean;
  /** The goal read, or why none was. */
  reading: string;
}

/**
 * Reads each row of a dataset (kitchen and tabletop rows). A kitchen row is read right when it reads as exactly its
 * goal literals with nothing not understood; a tabletop row when it reads as its canonical instruction (kept in the
 * row's metadata) reads, and, where that reading fixes literals, as the row's goal.
 */
export function readDataset(name: string): Reading[] {
  const canonical = new Map(
    readFileSync(datasetPath(name), "utf8").trim().split("\n").map((l) => {
      const r = JSON.parse(l) as { metadata: { task: string; condition: string; canonical?: string } };
      return [`${r.metadata.task}__${r.metadata.condition}`, r.metadata.canonical];
    }),
  );
  const kitchen = kitchenDescription();
  const kitchenLex = lexicon(kitchen, bundledManifests("kitchen"));
  return loadDataset(name).map((row: DatasetRow) => {
    const ex = row.example;
    if (ex.inputs.world === "course" || !("goal" in ex.outputs)) throw new Error(`${row.id}: only kitchen and tabletop rows are read`);
    const expected = ex.outputs.goal;
    if (ex.inputs.world === "kitchen") {
      const r = readInstruction(ex.inputs.goal, kitchen.labels, kitchen.places.map((p) => p.name), kitchenLex);
      const ok = r.notUnderstood.length === 0 && JSON.stringify([...r.goals].sort()) === JSON.stringify([...expected].sort());
      return { id: row.id, text: ex.inputs.goal, ok, reading: r.notUnderstood.length ? notUnderstoodMessage(r, kitchenLex) : r.goals.join(", ") };
    }
    const w = sceneDescription(ex.inputs.scenario as string);
    const mine = readTabletopGoal(ex.inputs.goal, w);
    const want = canonical.get(row.id);
    const theirs = want ? readTabletopGoal(want, w).goal : undefined;
    const literals = mine.goal ? goalLiterals(mine.goal, w) : [];
    const ok = !!mine.goal && (!theirs || JSON.stringify(mine.goal) === JSON.stringify(theirs)) && (!literals.length || JSON.stringify(literals) === JSON.stringify(expected));
    return { id: row.id, text: ex.inputs.goal, ok, reading: mine.goal ? JSON.stringify(mine.goal) : mine.message! };
  });
}

/** "31/40 (78%)", and a line for each row read wrong. */
export function readingReport(name: string, readings: Reading[]): string {
  const right = readings.filter((r) => r.ok).length;
  const lines = [`${name}: ${right}/${readings.length} read right (${Math.round((100 * right) / readings.length)}%)`];
  for (const r of readings.filter((x) => !x.ok)) lines.push(`  misread ${r.id}: "${r.text}" → ${r.reading}`);
  return lines.join("\n");
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  for (const name of process.argv.slice(2)) console.log(readingReport(name, readDataset(name)));
}
