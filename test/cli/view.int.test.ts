/**
 * `robograph view` in a real browser: Debian's Chromium driven by playwright-core opens the pages the viewer serves for
 * records made here by the real CLI — a kitchen episode (`robograph run` with its simulator process), a run killed
 * mid-episode, a two-variant experiment (`robograph eval`), and the smallest experiment of every kind (CLEA, RePLan,
 * VLM-PC, the behaviour critic, a Game On curriculum run) — and checks what a person would look at: frames drawn with
 * their detections, the keyboard moving the step, one chart mark per variant, episodes linked to their runs, the GIF
 * of a camera, each method's own tables and charts and no other method's, a report.json that fails its schema shown
 * as an error. Screenshots go under the test's temp directory (or ROBOGRAPH_SCREENSHOTS).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import sharp from "sharp";
import { chromium, type Browser, type Page } from "playwright-core";
import { ROOT, startSim, type SimProcess } from "../helpers/processes";
import { scratchDir } from "../helpers/episode";
import { agent } from "../helpers/agent";
import { programArgs } from "../../robots/programs";

// What the checks read inside the page (the project's TypeScript has no DOM library): page.evaluate runs them there.
interface PageImage {
  complete: boolean;
  naturalWidth: number;
}
interface PageCanvas {
  width: number;
  height: number;
  dataset: Record<string, string | undefined>;
  getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } };
}
interface PageDocument {
  querySelector(selector: string): (PageImage & PageCanvas & { parentElement: PageDocument }) | null;
  querySelectorAll(selector: string): ArrayLike<PageImage & PageCanvas>;
}
declare const document: PageDocument;

const CHROMIUM = process.env.ROBOGRAPH_CHROMIUM ?? "/usr/bin/chromium";
const haveBrowser = existsSync(CHROMIUM);
const required = process.env.ROBOGRAPH_REQUIRE_BROWSER === "1";
if (!haveBrowser && !required)
  console.warn(
    `test/cli/view.int.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium; CI sets ROBOGRAPH_REQUIRE_BROWSER=1 to fail instead)`,
  );

/** `robograph <command>` as its own process (node runs it itself, so a kill reaches the command). */
function cli(args: string[]): ChildProcess {
  return spawn(process.execPath, programArgs("cli/robograph.ts", args), {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function finished(child: ChildProcess): Promise<{ code: number | null; out: string }> {
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, out })));
}

describe.skipIf(!haveBrowser && !required)("robograph view in Chromium", () => {
  const tmp = scratchDir();
  const runs = join(tmp, "runs");
  const data = join(tmp, "data");
  const shots = process.env.ROBOGRAPH_SCREENSHOTS ?? join(tmp, "screenshots");
  let viewer: ChildProcess | undefined;
  let sim: SimProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let base = "";

  const shot = async (name: string) => {
    const path = join(shots, `${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`screenshot: ${path}`);
  };
  const stepLabel = () => page.locator("#step-label").textContent();

  beforeAll(async () => {
    if (!haveBrowser)
      throw new Error(`ROBOGRAPH_REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM} (apt-get install chromium)`);
    mkdirSync(shots, { recursive: true });
    sim = await startSim(["--scenario", "integration_tea_to_trash"]);
    const experiments = join(runs, "experiments");
    const bench = join(tmp, "critic-benchmark");
    const [episode, experiment, killed, kitchen, tabletop, critic, curriculum] = await Promise.all([
      // A whole kitchen episode, its simulator started by the CLI.
      finished(cli(["run", "--thread", "kitchen-view", "--data-dir", data, "--runs-dir", runs, "--quiet"])),
      // A real experiment: two variants of one obstacle course, one seed.
      finished(
        cli([
          "eval",
          "--dataset",
          "course",
          "--variants",
          "full,random",
          "--seeds",
          "1",
          "--limit",
          "1",
          "--concurrency",
          "2",
          "--root",
          join(runs, "experiments"),
          "--name",
          "two-variants",
        ]),
      ),
      // A run killed (SIGKILL) a dozen steps in: no summary, whatever its events file and checkpoints hold.
      agent(
        ["--thread", "killed-run", "--bridge-url", sim.url, "--data-dir", data, "--runs-dir", runs],
        (line, kill) => /^\[\s*12\]/.test(line) && kill(),
      ),
      // The smallest experiment of each other kind: one kitchen task (CLEA), one tabletop task (RePLan), one critic
      // case with its refinement loop, and a curriculum run of 24 episodes.
      finished(
        cli([
          "eval",
          "--dataset",
          "kitchen",
          "--variants",
          "full",
          "--seeds",
          "1",
          "--limit",
          "1",
          "--root",
          experiments,
          "--name",
          "kitchen-clea",
        ]),
      ),
      finished(
        cli([
          "eval",
          "--dataset",
          "tabletop",
          "--variants",
          "full",
          "--seeds",
          "1",
          "--limit",
          "1",
          "--root",
          experiments,
          "--name",
          "tabletop-replan",
        ]),
      ),
      (async () => {
        const made = await finished(
          spawn(
            process.execPath,
            programArgs("evals/datasets/behaviorCriticBenchmark.ts", [
              "--cases-per-behaviour",
              "1",
              "--behaviours",
              "knocked_over",
              "--out",
              bench,
            ]),
            { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
          ),
        );
        if (made.code !== 0) return made;
        return finished(
          cli([
            "eval",
            "--dataset",
            "critic",
            "--benchmark",
            bench,
            "--seeds",
            "1",
            "--refine-limit",
            "1",
            "--root",
            experiments,
            "--name",
            "critic-one-case",
          ]),
        );
      })(),
      finished(
        cli([
          "run",
          "--graph",
          "curriculum",
          "--budget-episodes",
          "24",
          "--seed",
          "3",
          "--runs-dir",
          runs,
          "--data-dir",
          join(tmp, "curriculum-data"),
          "--thread",
          "curriculum-short",
          "--quiet",
        ]),
      ),
    ]);
    expect(episode.code, episode.out).toBe(0);
    expect(experiment.code, experiment.out).toBe(0);
    for (const x of [kitchen, tabletop, critic]) expect(x.code, x.out).toBe(0);
    // A run this short learns nothing yet: it exits 2 with its record written.
    expect([0, 2], curriculum.out).toContain(curriculum.code);
    // A CLEA report that says it is VLM-PC's: its Average Score table is none of VLM-PC's, so the schema refuses it.
    mkdirSync(join(experiments, "mislabelled"), { recursive: true });
    const clea = JSON.parse(readFileSync(join(experiments, "kitchen-clea", "report.json"), "utf8"));
    writeFileSync(join(experiments, "mislabelled", "report.json"), JSON.stringify({ ...clea, method: "vlmpc" }));
    writeFileSync(
      join(experiments, "mislabelled", "report.md"),
      readFileSync(join(experiments, "kitchen-clea", "report.md"), "utf8"),
    );
    // Records from before the report contract: a runner's report.json with no method or tables, the critic's
    // results.json and refinement.json — each beside the report.md written with it.
    const { format: _f, method: _m, tables: _t, settings: _s, ...oldClea } = clea;
    mkdirSync(join(experiments, "legacy-clea"), { recursive: true });
    writeFileSync(join(experiments, "legacy-clea", "report.json"), JSON.stringify(oldClea));
    writeFileSync(
      join(experiments, "legacy-clea", "report.md"),
      readFileSync(join(experiments, "kitchen-clea", "report.md"), "utf8"),
    );
    const {
      format: _cf,
      method: _cm,
      tables: _ct,
      settings: _cs,
      name: _cn,
      refinement,
      ...oldCritic
    } = JSON.parse(readFileSync(join(experiments, "critic-one-case", "report.json"), "utf8"));
    mkdirSync(join(experiments, "legacy-critic"), { recursive: true });
    writeFileSync(join(experiments, "legacy-critic", "results.json"), JSON.stringify(oldCritic));
    writeFileSync(join(experiments, "legacy-critic", "refinement.json"), JSON.stringify(refinement));
    writeFileSync(
      join(experiments, "legacy-critic", "report.md"),
      readFileSync(join(experiments, "critic-one-case", "report.md"), "utf8"),
    );
    expect(killed.signal).toBe("SIGKILL");
    // The kill can also land while a line is being written: cut the last line in half, as such a kill leaves it.
    const events = join(runs, "killed-run", "events.jsonl");
    const text = readFileSync(events, "utf8");
    const lastLine = text.trimEnd().lastIndexOf("\n") + 1;
    writeFileSync(events, text.slice(0, lastLine + Math.floor((text.length - lastLine) / 2)));

    viewer = cli(["view", runs, "--data-dir", data, "--port", "0"]);
    base = await new Promise<string>((resolve, reject) => {
      let out = "";
      viewer!.stdout!.on("data", (chunk) => {
        out += chunk;
        const match = /robograph view: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (match) resolve(match[1]);
      });
      viewer!.stderr!.on("data", (d) => (out += d));
      viewer!.on("exit", (code) => reject(new Error(`the viewer exited (${code}) before serving:\n${out}`)));
    });
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on("pageerror", (err) => console.error(`page error: ${err.message}`));
  }, 480_000);

  afterAll(async () => {
    await browser?.close();
    if (viewer && viewer.exitCode === null) {
      const gone = new Promise((r) => viewer!.once("exit", r));
      viewer.kill("SIGTERM");
      await gone;
    }
    await sim?.stop();
  });

  it("shows a run: every step in the timeline, each camera's frame with the detector's boxes drawn, the keyboard moving the step", async () => {
    const steps = readFileSync(join(runs, "kitchen-view", "events.jsonl"), "utf8")
      .trim()
      .split("\n");
    await page.goto(`${base}/run/kitchen-view`);
    await page.waitForSelector("#step-label");
    expect(await stepLabel()).toBe(`step 1 / ${steps.length}`);
    expect(await page.locator(".timeline li").count()).toBe(steps.length);
    // Both robots' frames of the first look are on screen and decoded.
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll("img.frame")).every((i) => i.complete && i.naturalWidth > 0) &&
        document.querySelectorAll("img.frame").length === 2,
    );
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll("canvas.boxes")).every((c) => c.dataset.drawn === "1"),
    );
    // As many boxes drawn on each frame as the detector reported for it, and the canvas really has them painted.
    for (const robot of ["mobile", "arm"]) {
      const det = JSON.parse(readFileSync(join(runs, "kitchen-view", "frames", `001-${robot}.json`), "utf8")).detections
        .detections as unknown[];
      const drawn = await page.evaluate((camera) => {
        const canvas = document
          .querySelector(`img.frame[data-camera="${camera}"]`)!
          .parentElement.querySelector("canvas.boxes")!;
        const px = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < px.length; i += 4) if (px[i] > 0) painted++;
        return { boxes: Number(canvas.dataset.boxes), painted };
      }, robot);
      expect(drawn.boxes).toBe(det.length);
      if (det.length) expect(drawn.painted).toBeGreaterThan(0);
      else expect(drawn.painted).toBe(0);
    }
    expect(await page.locator("canvas.boxes[data-boxes]:not([data-boxes='0'])").count()).toBeGreaterThan(0);
    await shot("run-step-1");

    // ←/→ and Home/End move through the steps; the panels follow.
    await page.keyboard.press("ArrowRight");
    expect(await stepLabel()).toBe(`step 2 / ${steps.length}`);
    expect(await page.locator("#step-panel h3").textContent()).toBe(`step 2: ${JSON.parse(steps[1]).node}`);
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    expect(await stepLabel()).toBe(`step 1 / ${steps.length}`);
    await page.keyboard.press("End");
    expect(await stepLabel()).toBe(`step ${steps.length} / ${steps.length}`);
    // At the end: the plan, the critic's last verdict, every skill result and the simulator's goal check.
    const summary = JSON.parse(readFileSync(join(runs, "kitchen-view", "summary.json"), "utf8"));
    expect(await page.locator("#results-panel tr").count()).toBe(summary.steps + 1);
    expect(await page.locator("#critic-panel").count()).toBe(1);
    expect(await page.locator("#goal-panel li").first().textContent()).toContain("in(bottle_of_tea, trash_can)");
    await shot("run-end");
    await page.keyboard.press("Home");
    expect(await stepLabel()).toBe(`step 1 / ${steps.length}`);
    // The thread's checkpoint history is read from the data directory's SQLite checkpointer.
    expect(await page.locator("#checkpoints summary").textContent()).toMatch(/checkpoint history: \d+ checkpoints/);
  });

  it("serves each camera's frames as a GIF that decodes, one GIF frame per distinct camera frame", async () => {
    const frames = readdirSync(join(runs, "kitchen-view", "frames")).filter((f) => f.endsWith("-arm.png"));
    const res = await fetch(`${base}/gif/kitchen-view/arm.gif`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    const gif = Buffer.from(await res.arrayBuffer());
    expect(gif.subarray(0, 6).toString("latin1")).toBe("GIF89a");
    const meta = await sharp(gif, { animated: true }).metadata();
    expect(meta.pages).toBe(frames.length);
    expect(meta.width).toBe(320);
    // And the page shows it.
    await page.goto(`${base}/run/kitchen-view`);
    await page.locator("img.gif").first().scrollIntoViewIfNeeded();
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll("img.gif")).every((i) => i.complete && i.naturalWidth > 0),
    );
    expect(await page.locator("img.gif").count()).toBe(2);
    expect((await fetch(`${base}/gif/kitchen-view/nose.gif`)).status).toBe(404);
  });

  it("shows an experiment: the paper's tables, Chart.js charts with one mark per variant, every episode linked to its run", async () => {
    await page.goto(`${base}/`);
    await page.waitForSelector("a[href='/experiment/experiments/two-variants']");
    await page.click("a[href='/experiment/experiments/two-variants']");
    await page.waitForFunction(
      () => ((globalThis as unknown as { robographCharts?: unknown[] }).robographCharts ?? []).length === 4,
    );
    const report = JSON.parse(readFileSync(join(runs, "experiments", "two-variants", "report.json"), "utf8"));
    const chart = await page.evaluate(() => {
      const successChart = (
        globalThis as unknown as {
          Chart: {
            getChart(id: string): {
              data: { labels: string[]; datasets: { data: number[] }[] };
              getDatasetMeta(i: number): { data: unknown[] };
            };
          };
        }
      ).Chart.getChart("chart-success")!;
      const tasks = (
        globalThis as unknown as { Chart: { getChart(id: string): { data: { datasets: { label: string }[] } } } }
      ).Chart.getChart("chart-tasks")!;
      return {
        labels: successChart.data.labels,
        values: successChart.data.datasets[0].data,
        marks: successChart.getDatasetMeta(0).data.length,
        taskSeries: tasks.data.datasets.map((d) => d.label),
      };
    });
    expect(chart.labels).toEqual(["full", "random"]);
    expect(chart.marks).toBe(2);
    expect(chart.values).toEqual(report.variants.map((v: string) => report.table[v].all.successRate));
    expect(chart.taskSeries).toEqual(["full", "random"]);
    expect(await page.locator("table.paper").first().textContent()).toContain("Method");
    expect(await page.locator("h2", { hasText: "VLM-PC Table I layout" }).count()).toBe(1);
    const links = page.locator("#episodes a.episode");
    expect(await links.count()).toBe(report.episodes.length);
    await shot("experiment");
    // An episode's link opens its run: the head camera's frame with the detections the robot's state recorded.
    await links.first().click();
    await page.waitForSelector("#step-label");
    await page.waitForFunction(() => {
      const img = document.querySelector("img.frame");
      const canvas = document.querySelector("canvas.boxes");
      return !!img && img.complete && img.naturalWidth > 0 && canvas?.dataset.drawn === "1";
    });
    expect(Number(await page.locator("canvas.boxes").first().getAttribute("data-boxes"))).toBeGreaterThan(0);
    expect(await page.locator("#crumbs a").textContent()).toBe("experiments/two-variants");
    await shot("experiment-episode");
  });

  it("opens a run killed mid-episode with what it recorded: whole lines, no summary, its checkpoints", async () => {
    const whole = readFileSync(join(runs, "killed-run", "events.jsonl"), "utf8")
      .split("\n")
      .slice(0, -1).length;
    expect(existsSync(join(runs, "killed-run", "summary.json"))).toBe(false);
    await page.goto(`${base}/run/killed-run`);
    await page.waitForSelector("#step-label");
    expect(await page.locator(".timeline li").count()).toBe(whole);
    const notes = await page.locator("#notes").textContent();
    expect(notes).toMatch(new RegExp(`line ${whole + 1} is cut short`));
    expect(notes).toMatch(/no summary\.json: the run did not finish/);
    expect(await page.locator("h1 .badge").textContent()).toBe("incomplete");
    // No report.md was written: the goal comes from the thread's checkpoints.
    expect(await page.locator("main").textContent()).toContain(
      "goal: Find the bottle_of_tea and throw it into the trash_can.",
    );
    await page.waitForFunction(
      () =>
        Array.from(document.querySelectorAll("img.frame")).every((i) => i.complete && i.naturalWidth > 0) &&
        document.querySelectorAll("img.frame").length > 0,
    );
    await page.keyboard.press("End");
    expect(await stepLabel()).toBe(`step ${whole} / ${whole}`);
    expect(await page.locator("#goal-panel").textContent()).toMatch(/did not finish: no check on record/);
    // The checkpointer kept going where the record stops; its history is there, the last one still running.
    expect(await page.locator("#checkpoints summary").textContent()).toMatch(/checkpoint history: \d+ checkpoints/);
    expect(await page.locator(".facts").textContent()).toMatch(/last checkpoint: running/);
    await shot("killed-run");
  });
  /** Each kind of experiment: where it is, its method, the tables and charts it must show. */
  const KINDS = [
    {
      kind: "CLEA (kitchen)",
      rel: "experiments/kitchen-clea",
      method: "clea",
      tables: ["success", "average-score", "effort"],
      charts: ["chart-success", "chart-tasks", "chart-score", "chart-time"],
    },
    {
      kind: "RePLan (tabletop)",
      rel: "experiments/tabletop-replan",
      method: "replan",
      tables: ["replan-table-1", "replan-actions", "success"],
      charts: ["chart-success", "chart-tasks", "chart-actions", "chart-time"],
    },
    {
      kind: "VLM-PC (course)",
      rel: "experiments/two-variants",
      method: "vlmpc",
      tables: ["vlmpc-table-1", "vlmpc-figure-4", "success"],
      charts: ["chart-success", "chart-tasks", "chart-course-time", "chart-time"],
    },
    {
      kind: "behaviour critic",
      rel: "experiments/critic-one-case",
      method: "behaviorCritic",
      tables: ["table-1", "table-2", "error-taxonomy", "table-3", "table-4", "refinement", "refinement-per-program"],
      charts: ["chart-table-1", "chart-table-2", "chart-table-4", "chart-refinement"],
    },
    {
      kind: "Game On curriculum",
      rel: "curriculum-short",
      method: "curriculum",
      tables: ["library", "cycles", "proposals", "curve", "fig-5", "diversity"],
      charts: ["chart-library", "chart-curves", "chart-fig-5"],
    },
  ] as const;
  /** What belongs to one method only: on any other method's page it must not be there. */
  const OWN: Record<string, string[]> = {
    clea: ["average-score", "chart-score"],
    replan: ["replan-table-1", "replan-actions", "chart-actions"],
    vlmpc: [
      "vlmpc-table-1",
      "vlmpc-table-2",
      "vlmpc-figure-4",
      "vlmpc-figure-5",
      "chart-course-time",
      "chart-figure-5",
    ],
    behaviorCritic: [
      "table-1",
      "table-2",
      "table-4",
      "refinement",
      "chart-table-1",
      "chart-table-4",
      "chart-refinement",
    ],
    curriculum: ["library", "curve", "fig-5", "chart-library", "chart-curves", "chart-fig-5"],
  };

  for (const k of KINDS) {
    it(`shows a ${k.kind} experiment with its own tables and charts and none of the other methods'`, async () => {
      const dir = join(runs, k.rel);
      // The contract: report.json, report.md and report.html, no absolute path of this machine in any of them.
      for (const f of ["report.json", "report.md", "report.html"]) {
        const text = readFileSync(join(dir, f), "utf8");
        expect(text, `${k.rel}/${f} names a path of this machine`).not.toContain(tmp);
        expect(text).not.toContain(ROOT);
      }
      const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8"));
      expect(report.method).toBe(k.method);
      await page.goto(`${base}/`);
      await page.click(`a[href='/experiment/${k.rel.split("/").map(encodeURIComponent).join("/")}']`);
      await page.waitForSelector("#tables");
      await page.waitForFunction(
        (n) => ((globalThis as unknown as { robographCharts?: unknown[] }).robographCharts ?? []).length === n,
        k.charts.length,
      );
      expect(await page.locator("h1").getAttribute("data-method")).toBe(k.method);
      expect(await page.locator("#report-error").count()).toBe(0);
      for (const t of k.tables)
        expect(await page.locator(`[data-table="${t}"]`).count(), `table ${t}`).toBeGreaterThan(0);
      expect(
        await page
          .locator("[data-chart]")
          .evaluateAll((els) => els.map((e) => (e as unknown as { dataset: Record<string, string> }).dataset.chart)),
      ).toEqual(k.charts);
      // Every table report.json holds is drawn (the runner's episode list is the linked table instead).
      const drawn = report.tables.filter(
        (table: { id: string; rows: string[][] }) =>
          table.id !== "episodes" &&
          !(table.id === "verdicts" && table.rows.every((r) => r.slice(1).every((c) => c === "0"))),
      );
      expect(await page.locator("[data-table]").count()).toBe(drawn.length);
      for (const [m, own] of Object.entries(OWN)) {
        if (m === k.method) continue;
        for (const id of own)
          expect(
            await page.locator(`[data-table="${id}"], [data-chart="${id}"]`).count(),
            `${m}'s ${id} on a ${k.method} page`,
          ).toBe(0);
      }
      // No empty verdicts table, and CLEA's Average Score only on CLEA's page.
      expect(await page.locator("h2", { hasText: "Average Score" }).count()).toBe(k.method === "clea" ? 1 : 0);
      for (const t of await page.locator("[data-table='verdicts'] td.num").allTextContents()) expect(t).toMatch(/\d/);
      expect(await page.locator("#episodes").count()).toBe(["clea", "replan", "vlmpc"].includes(k.method) ? 1 : 0);
      await shot(`kind-${k.method}`);
    });
  }

  it("shows a report.json that fails its method's schema as an error naming what is wrong, with report.md as written", async () => {
    await page.goto(`${base}/experiment/experiments/mislabelled`);
    await page.waitForSelector("#report-error");
    const error = await page.locator("#report-error").textContent();
    expect(error).toMatch(/does not match the vlmpc report schema/);
    expect(error).toMatch(/tables\.\d+\.id/);
    expect(await page.locator("[data-chart]").count()).toBe(0);
    // What report.md says is still there to read.
    expect(await page.locator("#tables table.paper").count()).toBeGreaterThan(0);
    await shot("kind-mislabelled");
  });

  it("reads records from before the report contract in its shape: the method told from their fields, the tables from their report.md", async () => {
    for (const [rel, method, table] of [
      ["legacy-clea", "clea", "average-score"],
      ["legacy-critic", "behaviorCritic", "refinement"],
    ] as const) {
      await page.goto(`${base}/experiment/experiments/${rel}`);
      await page.waitForSelector("#tables");
      expect(await page.locator("h1").getAttribute("data-method")).toBe(method);
      expect(await page.locator("#report-error").count()).toBe(0);
      expect(await page.locator(".notes").textContent()).toMatch(/written before the report contract/);
      expect(await page.locator(`[data-table="${table}"]`).count()).toBe(1);
    }
  });

  it("links a curriculum run's timeline and its report both ways", async () => {
    await page.goto(`${base}/run/curriculum-short`);
    await page.waitForSelector("#report-link");
    await page.click("#report-link");
    await page.waitForSelector("[data-table='library']");
    expect(await page.locator("h1").getAttribute("data-method")).toBe("curriculum");
  });
});
