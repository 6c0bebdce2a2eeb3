/**
 * Instructions in plain words, end to end (issue 15): the paraphrase dataset's episodes run through the experiment
 * runner — each against its own simulator process over the real bridge, the symbolic backend reading only the
 * instruction, the manifests and what the detectors publish — and are judged on the simulator's true state. By default
 * a sample runs (below); the tabletop's MPC scenes take half a minute to a minute and a half per episode, so only
 * ROBOGRAPH_PARAPHRASES=all runs them, with every other paraphrase.
 * An instruction naming nothing the world has ends at once, and the CLI's output and the run's summary say which words.
 */
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset } from "../../evals/datasets";
import { runExperiment } from "../../evals/runner";
import { closePooledSessions } from "../../runtime/run";
import { BridgeClient } from "../../robots/bridge/client";
import { MANIFEST_SERVICE, ManifestResponse } from "../../robots/manifests/schema";
import type { DetectionsMessage } from "../../robots/msgs/detections";
import { NAMES } from "../../robots/sim/kitchen/layout";
import { ROOT, startSim, type SimProcess } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { programArgs } from "../../robots/programs";

const FAST_SCENES = new Set(["cabinet_open", "color"]);
const all = process.env.ROBOGRAPH_PARAPHRASES === "all";
/** The issue's own two examples run always. */
const ISSUE_EXAMPLES = ["Locate the tea bottle and dispose of it in the garbage.", "Throw away the bottle of tea."];
const dataset = loadDataset("paraphrases");
/**
 * By default (about a minute and a half; more on a loaded machine): the first paraphrase of each kitchen scenario and
 * of each fast tabletop scene, and the issue's examples; ROBOGRAPH_PARAPHRASES=all runs all of them (six to ten minutes).
 */
const rows = dataset.filter((row, i) => {
  const ex = row.example;
  if (all || ISSUE_EXAMPLES.includes(ex.inputs.goal)) return true;
  if (ex.inputs.world === "tabletop" && !FAST_SCENES.has(ex.inputs.scenario as string)) return false;
  const scenario = (x: typeof ex) =>
    x.inputs.world === "kitchen" ? x.inputs.scenario.name : String(x.inputs.scenario);
  return dataset.findIndex((o) => scenario(o.example) === scenario(ex)) === i;
});

const sims: SimProcess[] = [];
afterAll(async () => {
  await closePooledSessions();
  await Promise.all(sims.map((s) => s.stop()));
});

describe("paraphrased instructions, end to end", () => {
  it(
    `solves at least 90% of ${rows.length} paraphrases on the simulator`,
    async () => {
      const results = await runExperiment({
        name: "paraphrases",
        dataset: "paraphrases",
        variants: ["full"],
        seeds: 1,
        noise: 0,
        concurrency: 3,
        only: rows.map((r) => r.id),
        root: scratchDir(),
        maxSteps: 40,
        maxWallSeconds: 300,
      });
      expect(results).toHaveLength(rows.length);
      const solved = results.filter((r) => r.success);
      const goal = new Map(rows.map((r) => [r.id, r.example.inputs.goal]));
      console.log(
        `paraphrases solved: ${solved.length}/${results.length} (${Math.round((100 * solved.length) / results.length)}%)`,
      );
      for (const r of results.filter((x) => !x.success))
        console.log(`  not solved: ${r.example} "${goal.get(r.example)}" → ${r.status}: ${r.statusReason}`);
      // None ends as not understood: that would be the reader failing, whatever else went wrong.
      expect(results.filter((r) => /not understood/.test(r.statusReason)).map((r) => r.example)).toEqual([]);
      expect(solved.length / results.length).toBeGreaterThanOrEqual(0.9);
      // A hang guard, not a speed check: the whole set runs MPC episodes of a minute and more.
    },
    all ? 1_800_000 : 300_000,
  );

  it("the kitchen publishes its names, and its detections carry display labels", async () => {
    const sim = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
    sims.push(sim);
    const client = await BridgeClient.connect(sim.url);
    try {
      const manifest = ManifestResponse.parse(await client.callService(MANIFEST_SERVICE));
      expect(manifest.world?.names?.trash_can?.aliases).toEqual(expect.arrayContaining(["garbage", "bin", "trash"]));
      expect(manifest.world?.names?.bottle_of_tea?.aliases).toContain("tea bottle");
      expect(manifest.world?.names).toEqual(NAMES);
      expect(manifest.robots.find((r) => r.id === "mobile")?.skills.find((s) => s.name === "pick_from")?.display).toBe(
        "pick up",
      );
      const message = await client.nextMessage<DetectionsMessage>("/arm/detections", undefined, 20_000);
      expect(message.detections.length).toBeGreaterThan(0);
      for (const x of message.detections) expect(x.display).toBe(NAMES[x.label].display);
    } finally {
      await client.close();
    }
  });

  it("an instruction naming nothing in the kitchen ends at once, and the CLI and the summary name the words", async () => {
    const data = scratchDir();
    const child = spawn(
      process.execPath,
      [
        ...programArgs("cli/robograph.ts"),
        "run",
        "--goal",
        "Throw the flux capacitor into the garbage.",
        "--data-dir",
        data,
        "--runs-dir",
        join(data, "runs"),
        "--quiet",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).not.toBe(0);
    const [thread] = readdirSync(join(data, "runs"));
    const summary = JSON.parse(readFileSync(join(data, "runs", thread, "summary.json"), "utf8"));
    expect(summary.status).toBe("gave_up");
    expect(summary.statusReason).toMatch(
      /^the instruction is not understood: "Throw the flux capacitor into the garbage"; could not place "flux capacitor" \(nothing close\); I know objects: bottle_of_tea, /,
    );
    expect(summary.statusReason).toContain("skills: go_to, open, close, pick_from, release_to");
    expect(out).toContain(summary.statusReason);
  });
});
