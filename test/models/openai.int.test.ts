/**
 * The openai backend's real client code (@langchain/openai) against a local server that speaks the OpenAI protocol:
 * no hosted model can be reached from here, so the server stands in for one.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { HumanMessage } from "@langchain/core/messages";
import sharp from "sharp";
import { askStructured, createModels, modelConfig, ModelOutputError, ModelUnavailableError } from "../../models";
import { Critique } from "../../graphs/clea/schemas";
import { SymbolicChatModel } from "../../models/symbolic";
import { allReasoners } from "../../graphs";
import { closePooledSessions } from "../../runtime/run";
import { startFakeOpenAI, type ChatRequest, type FakeOpenAI } from "../helpers/openaiServer";
import { startSim, type SimProcess } from "../helpers/processes";
import { runEpisode, scratchDir } from "../helpers/episode";
import { startSimProcess } from "../../robots/sim/process";
import { loadDataset } from "../../evals/datasets";
import { runMethodEpisode } from "../../evals/episode";
import { execFile } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ROOT } from "../helpers/processes";

const TSX = join(dirname(createRequire(import.meta.url).resolve("tsx/package.json")), "dist", "cli.mjs");

let fake: FakeOpenAI;
/** The text part of a request's user message: what a hosted VLM would read besides the images. */
const contextText = (req: ChatRequest) =>
  (req.messages.find((m) => m.role === "user")!.content as { type: string; text?: string }[]).find(
    (p) => p.type === "text",
  )!.text!;
const env = (baseURL: string) => ({
  OPENAI_API_KEY: "sk-local",
  OPENAI_BASE_URL: baseURL,
  ROBOGRAPH_MODEL: "local-vlm",
  ROBOGRAPH_MODEL_RETRIES: "0",
  ROBOGRAPH_MODEL_TIMEOUT_MS: "5000",
});
let png: Buffer;

/** The server answers as the symbolic reasoner would from the context text alone: a hosted VLM's stand-in. */
const reasonerAnswer =
  (reasoner = new SymbolicChatModel(allReasoners())) =>
  async (req: ChatRequest) =>
    (await reasoner._generate([new HumanMessage(contextText(req))])).generations[0].text;

/** A describe block's episode needs: the endpoint in the environment, a simulator, both undone afterwards. */
function episodeFixture() {
  const saved = { ...process.env };
  const fx: { sim?: SimProcess } = {};
  afterAll(async () => {
    process.env = saved;
    await closePooledSessions();
    await fx.sim?.stop();
  });
  return fx;
}

beforeAll(async () => {
  fake = await startFakeOpenAI(() => ({ arguments: "{}" }));
  png = await sharp({ create: { width: 640, height: 480, channels: 3, background: "#c04020" } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const ask = (config = modelConfig(env(fake.baseURL))) =>
  askStructured(createModels(config, allReasoners()), config, {
    role: "critic",
    schema: Critique,
    schemaName: "Critique",
    system: "judge the action",
    task: "critique",
    context: { action: { robot: "arm", skill: "open", args: { target: "drawer_top" } } },
    images: [{ type: "image_url", image_url: { url: `data:image/png;base64,${png.toString("base64")}` } }],
  });

describe("openai backend over HTTP", () => {
  it("picks openai when a key is configured and symbolic otherwise", () => {
    expect(modelConfig(env(fake.baseURL)).backend).toBe("openai");
    expect(modelConfig({}).backend).toBe("symbolic");
    expect(() => modelConfig({}, { backend: "openai" })).toThrow(/needs OPENAI_API_KEY/);
  });

  it("sends image parts and parses the structured answer, counting usage", async () => {
    fake.respond = () => ({
      arguments: JSON.stringify({ verdict: "redundant", feedback: "the drawer is already open" }),
    });
    const { value, usage } = await ask();
    expect(value).toEqual({ verdict: "redundant", feedback: "the drawer is already open" });
    expect(usage.critic).toEqual({ calls: 1, inputTokens: 100, outputTokens: 20, images: 1, outcomes: { ok: 1 } });
    const req = fake.requests[0];
    expect(req.model).toBe("local-vlm");
    expect(req.tools?.[0].function.name).toBe("Critique");
    const parts = req.messages.find((m) => m.role === "user")!.content as {
      type: string;
      image_url?: { url: string };
    }[];
    expect(parts[0].type).toBe("text");
    const image = parts.find((p) => p.type === "image_url")!;
    expect(image.image_url!.url).toMatch(/^data:image\/png;base64,/);
  });

  it("caps the image's longest side before sending it", async () => {
    const { imagePart } = await import("../../models");
    const part = await imagePart(png, 256);
    const meta = await sharp(Buffer.from(part.image_url.url.split(",")[1], "base64")).metadata();
    expect([meta.width, meta.height]).toEqual([256, 192]);
  });

  it("sends a malformed answer back for repair and accepts the corrected one", async () => {
    fake.respond = (_req, count) =>
      count === 1
        ? { arguments: JSON.stringify({ verdict: "maybe", feedback: 3 }) }
        : { arguments: JSON.stringify({ verdict: "ok", feedback: "fine" }) };
    const { value } = await ask();
    expect(value.verdict).toBe("ok");
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1].messages.at(-1))).toMatch(/does not fit the Critique schema/);
  });

  it("fails clearly, naming the role and the schema, when every answer is malformed", async () => {
    fake.respond = () => ({ arguments: "{not json" });
    const err = await ask().catch((e) => e);
    expect(err).toBeInstanceOf(ModelOutputError);
    expect(err.message).toMatch(/the critic model's answer does not fit the Critique schema/);
    expect(err.message).toMatch(/after 3 attempts/);
  });

  it("jsonSchema mode: an answer that is not JSON goes back for repair naming the schema, not resent as a transport failure", async () => {
    const config = modelConfig({
      ...env(fake.baseURL),
      ROBOGRAPH_MODEL_RETRIES: "1",
      ROBOGRAPH_STRUCTURED_METHOD: "jsonSchema",
    });
    fake.respond = (_req, count) =>
      count === 1
        ? { content: "Sure! The drawer looks fine to open." }
        : { content: JSON.stringify({ verdict: "ok", feedback: "fine" }) };
    const { value, usage } = await ask(config);
    expect(value).toEqual({ verdict: "ok", feedback: "fine" });
    expect(fake.requests[0].response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "Critique", strict: true },
    });
    // The second request is a repair, carrying the answer and the complaint; both calls count.
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1].messages.at(-1))).toMatch(
      /does not fit the Critique schema \(the answer is not valid JSON: \\"Sure! The drawer/,
    );
    expect(usage.critic?.calls).toBe(2);

    fake.requests.length = 0;
    fake.respond = () => ({ content: "I think it is fine." });
    const err = await ask(config).catch((e) => e);
    expect(err).toBeInstanceOf(ModelOutputError);
    expect(err.message).toMatch(
      /the critic model's answer does not fit the Critique schema: the answer is not valid JSON: "I think it is fine\." \(after 3 attempts\)/,
    );
    expect(fake.requests).toHaveLength(3);
  });

  it("explains LangChain's 'new packages' notice once, instead of printing it for every malformed tool call", async () => {
    // A process of its own: the notice goes to its stderr, where a user would see it.
    fake.respond = () => ({ arguments: "{not json" });
    const script = join(scratchDir(), "ask.mts");
    const models = JSON.stringify(join(ROOT, "models", "index.ts"));
    const schemas = JSON.stringify(join(ROOT, "graphs", "clea", "schemas.ts"));
    writeFileSync(
      script,
      `import { askStructured, createModels, modelConfig } from ${models};
import { Critique } from ${schemas};
const config = modelConfig(process.env);
const ask = () => askStructured(createModels(config, {}), config, { role: "critic", schema: Critique, schemaName: "Critique", system: "judge", task: "critique", context: {} }).catch((e) => console.log(e.message));
await ask();
await ask();
`,
    );
    const out = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) =>
      execFile(
        process.execPath,
        [TSX, script],
        { env: { ...process.env, ...env(fake.baseURL) } },
        (err, stdout, stderr) => (err ? reject(err) : resolve({ stdout, stderr })),
      ),
    );
    expect(
      out.stdout.match(/does not fit the Critique schema: the answer is not valid JSON: "\{not json"/g),
    ).toHaveLength(2);
    expect(fake.requests).toHaveLength(6);
    expect(out.stderr).not.toMatch(/New LangChain packages are available/);
    expect(
      out.stderr.match(/tool-call arguments that are not valid JSON; the answer goes back for repair/g),
    ).toHaveLength(1);
  });

  it("fails fast with a clear error when the endpoint is dead", async () => {
    const dead = await startFakeOpenAI(() => ({ arguments: "{}" }));
    const url = dead.baseURL;
    await dead.close();
    const err = await ask(modelConfig(env(url))).catch((e) => e);
    // Fast: one request, failed on the refused connection, not on the 5 s timeout or a retry.
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect(err.attempts).toBe(1);
    expect(err.lastError).toMatch(/^connection/);
    expect(err.message).toMatch(/the critic model \(local-vlm at http:\/\/127\.0\.0\.1:\d+\/v1\) failed/);
  });
});

describe("a whole episode through the openai backend", () => {
  const fx = episodeFixture();

  it("runs the same graph with every model call going over HTTP (the server answers with the symbolic reasoner)", async () => {
    // The server sees what a hosted VLM would: the system prompt, the context text and the images.
    const answer = reasonerAnswer();
    fake.respond = async (req) => ({ arguments: await answer(req) });
    Object.assign(process.env, env(fake.baseURL));
    const sim = (fx.sim = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]));
    const episode = await runEpisode({
      url: sim.url,
      scenario: "integration_tea_to_trash",
      thread: "openai-episode",
      backend: "openai",
    });
    expect(episode.truth.success, `${episode.state.status}: ${episode.state.statusReason}`).toBe(true);
    expect(fake.requests.length).toBeGreaterThan(10);
    const withImages = fake.requests.filter((r) => JSON.stringify(r.messages).includes("data:image/png;base64,"));
    expect(withImages.length).toBeGreaterThan(0);
    const total = Object.values(episode.state.usage).reduce((n, u) => n + u.calls, 0);
    expect(total).toBe(fake.requests.length);
  });
});

describe("RePLan's hierarchical mode through the openai backend", () => {
  const fx = episodeFixture();

  it("runs task 3 with every call over HTTP, and a reward program that fails its schema is repaired", async () => {
    const reason = reasonerAnswer();
    let broke = false;
    fake.respond = async (req) => {
      const text = contextText(req);
      const answer = await reason(req);
      // The first reward program comes back with a term the controller does not know: the node must ask again.
      if (!broke && text.includes('"task":"motion_draft"')) {
        broke = true;
        const bad = JSON.parse(answer);
        bad.terms[0].term = { kind: "teleport_to", a: "palm", b: "left_door_handle" };
        return { arguments: JSON.stringify(bad) };
      }
      return { arguments: answer };
    };
    Object.assign(process.env, env(fake.baseURL));
    const started = (fx.sim = await startSimProcess("tabletop", ["--scenario", "cabinet_barred", "--speed", "max"]));
    const goal = loadDataset("tabletop").find(
      (r) => r.example.inputs.world === "tabletop" && r.example.inputs.scenario === "cabinet_barred",
    )!.example.inputs.goal;
    const episode = await runMethodEpisode({
      mode: "replan",
      url: started.url,
      goal,
      thread: "openai-replan",
      dataDir: scratchDir(),
      backend: "openai",
    });
    expect(broke).toBe(true);
    // The repair request carried the schema complaint back to the model.
    expect(fake.requests.some((r) => JSON.stringify(r.messages).includes("does not fit the MotionDraft schema"))).toBe(
      true,
    );
    expect(episode.truth.success).toBe(true);
    expect(episode.trace.some((t) => t.node === "diagnose")).toBe(true);
    expect(JSON.stringify(fake.requests)).toContain("data:image/png;base64,");
  });
});

describe("VLM-PC through the openai backend", () => {
  const fx = episodeFixture();
  const imagesIn = (request: ChatRequest) =>
    (request.messages.find((m) => m.role === "user")!.content as { type: string }[]).filter(
      (p) => p.type === "image_url",
    ).length;

  it("sends the history's frames with each planning call, and no more than the window when one is set", async () => {
    const answer = reasonerAnswer();
    fake.respond = async (req) => ({ arguments: await answer(req) });
    Object.assign(process.env, env(fake.baseURL));
    const { COURSE_GOAL } = await import("../../evals/datasets");
    let sim = (fx.sim = await startSimProcess("course", ["--scenario", "indoor_1", "--speed", "max"]));
    const whole = await runMethodEpisode({
      mode: "vlmpc",
      url: sim.url,
      goal: COURSE_GOAL,
      thread: "openai-vlmpc",
      dataDir: scratchDir(),
      backend: "openai",
      maxSteps: 5,
    });
    // Step k's call carries the k earlier frames and the current view, earlier answers in its text.
    expect(fake.requests.map(imagesIn)).toEqual([1, 2, 3, 4, 5]);
    expect(contextText(fake.requests[4])).toContain('"history":[{"step":0');
    expect(fake.requests[0].tools?.[0].function.name).toBe("CoursePlan");
    expect(whole.state.counters.skills).toBe(5);
    fake.requests.length = 0;
    await sim.stop();
    sim = fx.sim = await startSimProcess("course", ["--scenario", "indoor_1", "--speed", "max"]);
    await runMethodEpisode({
      mode: "vlmpc",
      url: sim.url,
      goal: COURSE_GOAL,
      thread: "openai-vlmpc-window",
      dataDir: scratchDir(),
      backend: "openai",
      maxSteps: 6,
      settings: { historyWindow: 2 },
    });
    expect(fake.requests.map(imagesIn)).toEqual([1, 2, 3, 3, 3, 3]);
    // What scrolled out of the window is summarized in text, without its frame.
    expect(contextText(fake.requests[5])).toContain('"summary":[{"step":0');
  });
});
