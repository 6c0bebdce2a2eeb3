/**
 * The model path against an endpoint that misbehaves, through the real @langchain/openai client and a local
 * OpenAI-compatible server: 500s and 429s are retried (Retry-After honoured), a stall past the time limit is retried,
 * JSON inside prose or a code fence is taken without a repair, every request is counted with its outcome, and an
 * endpoint that stays down pauses the run (`interrupted`) — which `--resume` continues once the endpoint is back,
 * without the robot running anything twice.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  askStructured,
  backoffMs,
  createModels,
  extractJson,
  modelConfig,
  ModelUnavailableError,
  retryAfterMs,
  withModelScope,
} from "../../models";
import { Critique } from "../../graphs/clea/schemas";
import { BridgeClient } from "../../robots/bridge/client";
import {
  answerAsReasoner,
  contextText,
  startFakeOpenAI,
  type ChatRequest,
  type FakeOpenAI,
} from "../helpers/openaiServer";
import { startSim, type SimProcess } from "../helpers/processes";
import { agent } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { allReasoners } from "../../graphs";

let fake: FakeOpenAI;
const ok = { arguments: JSON.stringify({ verdict: "ok", feedback: "fine" }) };
const env = (extra: Record<string, string> = {}) => ({
  OPENAI_API_KEY: "sk-local",
  OPENAI_BASE_URL: fake.baseURL,
  ROBOGRAPH_MODEL: "local-vlm",
  ROBOGRAPH_MODEL_RETRIES: "4",
  // Short backoff: what these tests show is that a wait happens and how many times, not how long a default one is.
  ROBOGRAPH_MODEL_BACKOFF_MS: "10",
  ROBOGRAPH_MODEL_TIMEOUT_MS: "5000",
  ...extra,
});
const ask = (config = modelConfig(env())) =>
  askStructured(createModels(config, allReasoners()), config, {
    role: "critic",
    schema: Critique,
    schemaName: "Critique",
    system: "judge the action",
    task: "critique",
    context: { action: "open the drawer" },
  });

beforeAll(async () => {
  fake = await startFakeOpenAI(() => ok);
});
afterAll(async () => {
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.arrivals.length = 0;
});

describe("transport failures are retried", () => {
  it("500s: sent again with backoff until one answers, every request counted with its outcome", async () => {
    fake.respond = (_r, count) =>
      count <= 2 ? { status: 500, body: JSON.stringify({ error: { message: "upstream exploded" } }) } : ok;
    const { value, usage } = await ask();
    expect(value).toEqual({ verdict: "ok", feedback: "fine" });
    expect(fake.requests).toHaveLength(3);
    expect(usage.critic).toMatchObject({ calls: 3, outcomes: { http_500: 2, ok: 1 } });
  });

  it("429 with Retry-After: waits as long as the server asked, not the (shorter) backoff", async () => {
    fake.respond = (_r, count) =>
      count === 1
        ? { status: 429, body: JSON.stringify({ error: { message: "slow down" } }), headers: { "retry-after": "1" } }
        : ok;
    const { usage } = await ask();
    expect(fake.requests).toHaveLength(2);
    // A lower bound only: the server asked for a second, the configured backoff is 10 ms.
    expect(fake.arrivals[1] - fake.arrivals[0]).toBeGreaterThanOrEqual(950);
    expect(usage.critic?.outcomes).toEqual({ http_429: 1, ok: 1 });
  });

  it("a stall past the time limit: the request is given up and sent again", async () => {
    fake.respond = (_r, n) => (n === 1 ? { stall: true } : ok);
    const { value, usage } = await ask(modelConfig(env({ ROBOGRAPH_MODEL_TIMEOUT_MS: "300" })));
    expect(value.verdict).toBe("ok");
    expect(usage.critic?.outcomes).toEqual({ timeout: 1, ok: 1 });
  });

  it("gives up after the bounded retries, naming the role, the endpoint and the last error", async () => {
    fake.respond = () => ({ status: 503, body: JSON.stringify({ error: { message: "overloaded" } }) });
    const scope = { usage: {} };
    const err = await withModelScope(scope, () => ask(modelConfig(env({ ROBOGRAPH_MODEL_RETRIES: "2" })))).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect(err.message).toMatch(
      /the critic model \(local-vlm at http:\/\/127\.0\.0\.1:\d+\/v1\) failed 3 times \(2 retries\); last error: HTTP 503: 503 overloaded/,
    );
    expect(fake.requests).toHaveLength(3);
    // The node's ledger has every request, though the call threw.
    expect(scope.usage).toMatchObject({ critic: { calls: 3, outcomes: { http_503: 3 } } });
  });

  it("does not wait past the run's wall budget: a Retry-After beyond it ends the retrying at once", async () => {
    fake.respond = () => ({ status: 429, body: "{}", headers: { "retry-after": "30" } });
    const err = await withModelScope({ usage: {}, deadline: Date.now() + 2000 }, () => ask()).catch((e) => e);
    expect(err).toBeInstanceOf(ModelUnavailableError);
    expect(err.message).toMatch(/wall budget leaves no time for a retry after the 30 s the server asked for/);
    expect(fake.requests).toHaveLength(1);
  });

  it("does not retry what a retry cannot fix (a 400)", async () => {
    fake.respond = () => ({ status: 400, body: JSON.stringify({ error: { message: "bad request" } }) });
    const err = await ask().catch((e) => e);
    expect(err).not.toBeInstanceOf(ModelUnavailableError);
    expect(err.message).toMatch(/the critic model .* failed: 400/);
    expect(fake.requests).toHaveLength(1);
  });

  it("reads Retry-After as seconds, as a date and as retry-after-ms; jitters the backoff within its bounds", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ headers: new Headers({ "retry-after": "3" }) }, now)).toBe(3000);
    expect(retryAfterMs({ headers: new Headers({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }) }, now)).toBe(5000);
    expect(retryAfterMs({ headers: { "retry-after-ms": "250" } }, now)).toBe(250);
    expect(retryAfterMs({ headers: new Headers() }, now)).toBeUndefined();
    const retry = { backoffMs: 1000, maxBackoffMs: 8000 };
    expect([0, 1, 2, 3, 4].map((r) => backoffMs(retry, r, () => 0))).toEqual([500, 1000, 2000, 4000, 4000]);
    expect([0, 1, 2, 3, 4].map((r) => backoffMs(retry, r, () => 1))).toEqual([1000, 2000, 4000, 8000, 8000]);
  });
});

describe("answers with prose or a fence around the JSON", () => {
  const answer = JSON.stringify({ verdict: "redundant", feedback: "the drawer is already open" });

  it.each([
    ["prose around it", `Sure! Here is my verdict: ${answer} Let me know if you need more.`],
    ["a code fence", `\`\`\`json\n${answer}\n\`\`\``],
    ["prose and a fence", `The action looks redundant.\n\n\`\`\`json\n${answer}\n\`\`\`\nHope this helps.`],
  ])("%s: found and validated, no repair request (jsonSchema and jsonMode)", async (_name, content) => {
    for (const method of ["jsonSchema", "jsonMode"]) {
      fake.requests.length = 0;
      fake.respond = () => ({ content });
      const { value, usage } = await ask(modelConfig(env({ ROBOGRAPH_STRUCTURED_METHOD: method })));
      expect(value).toEqual({ verdict: "redundant", feedback: "the drawer is already open" });
      expect(fake.requests).toHaveLength(1);
      expect(usage.critic?.outcomes).toEqual({ ok: 1 });
    }
  });

  it("a real schema failure still goes back for repair; a truncated answer is not completed into a shorter one", async () => {
    fake.respond = (_r, count) =>
      count === 1 ? { content: 'My answer: {"verdict": "maybe", "feedback": "hm"}' } : { content: answer };
    const { usage } = await ask(modelConfig(env({ ROBOGRAPH_STRUCTURED_METHOD: "jsonMode" })));
    expect(fake.requests).toHaveLength(2);
    expect(JSON.stringify(fake.requests[1].messages.at(-1))).toMatch(/does not fit the Critique schema \(verdict/);
    expect(usage.critic?.outcomes).toEqual({ invalid: 1, ok: 1 });
    // A cut-off answer is never completed: at most an inner part parses, which does not fit the whole schema.
    expect(extractJson('{"steps": [{"robot": "arm"}, {"robot": "mob')).not.toHaveProperty("steps");
    expect(extractJson('text [1, 2] more {"a": [3]} end')).toEqual([1, 2]);
  });
});

describe("an endpoint that stays down pauses the run, and --resume continues it", () => {
  let sim: SimProcess;
  let watcher: BridgeClient;
  beforeAll(async () => {
    sim = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
    watcher = await BridgeClient.connect(sim.url);
  });
  afterAll(async () => {
    await watcher?.close();
    await sim?.stop();
  });

  /** The server answers as the symbolic reasoner would from the context text alone (a hosted VLM's stand-in). */
  const answer = answerAsReasoner;
  const task = (req: ChatRequest) => /"task":"(\w+)"/.exec(contextText(req))?.[1];

  it("ends interrupted (exit 3) naming the role and endpoint, then finishes on resume without repeating a skill", async () => {
    const data = scratchDir();
    const runs = scratchDir();
    const thread = "endpoint-down";
    // Up for the first skill; then every request fails until the endpoint is "back".
    let down = false;
    let skillsSeen = 0;
    fake.respond = async (req) => {
      if (down) return { status: 503, body: JSON.stringify({ error: { message: "the model is overloaded" } }) };
      if (task(req) === "summarize" && ++skillsSeen === 3) {
        down = true;
        return { status: 503, body: JSON.stringify({ error: { message: "the model is overloaded" } }) };
      }
      return answer(req);
    };
    const args = [
      "--bridge-url",
      sim.url,
      "--thread",
      thread,
      "--data-dir",
      data,
      "--runs-dir",
      runs,
      "--quiet",
      "--forget",
    ];
    const first = await agent(args, undefined, { ...process.env, ...env({ ROBOGRAPH_MODEL_RETRIES: "2" }) });
    expect(first.code, first.out).toBe(3);
    expect(first.out).toMatch(
      /INTERRUPTED — interrupted: interrupted in summarizer: the summarizer model \(local-vlm at http:\/\/127\.0\.0\.1:\d+\/v1\) failed 3 times \(2 retries\); last error: HTTP 503/,
    );
    const summary = JSON.parse(readFileSync(join(runs, thread, "summary.json"), "utf8"));
    expect(summary).toMatchObject({
      status: "interrupted",
      resume: `npm start -- --thread ${thread} --resume --bridge-url ${sim.url}`,
    });
    // Every request the server got is counted, the failed ones by their outcome.
    expect(summary.modelCalls).toBe(fake.requests.length);
    expect(summary.modelCallOutcomes.http_503).toBe(3);
    expect(readFileSync(join(runs, thread, "report.md"), "utf8")).toMatch(
      /## Result: interrupted[\s\S]*Continue it with `npm start -- --thread endpoint-down --resume/,
    );
    const before = fake.requests.length;
    const started = async () =>
      (await watcher.callService<{ events: { kind: string; goalId?: string }[] }>("/evaluator/events")).events
        .filter((e) => e.kind === "skill_started" && e.goalId?.startsWith(`${thread}/`))
        .map((e) => e.goalId);

    // The endpoint is back: the resumed run asks the summarizer again first, then carries on to the end.
    const skillsBefore = await started();
    down = false;
    skillsSeen = -Infinity;
    const second = await agent([...args.filter((a) => a !== "--quiet"), "--resume"], undefined, {
      ...process.env,
      ...env(),
    });
    expect(second.out).toMatch(/running summarizer( and critic)? again/);
    expect(second.code, second.out).toBe(0);
    expect(task(fake.requests[before])).toBe("summarize");
    const all = await started();
    expect(all.slice(0, skillsBefore.length)).toEqual(skillsBefore);
    expect(new Set(all).size).toBe(all.length);
    const done = JSON.parse(readFileSync(join(runs, thread, "summary.json"), "utf8"));
    expect(done).toMatchObject({ status: "succeeded", success: true });
  }, 180_000);

  it("a request the endpoint refuses for good ends the run failed, the refused request counted", async () => {
    const data = scratchDir();
    const runs = scratchDir();
    const thread = "endpoint-refuses";
    // Not a transport failure: a 400 is not retried; the node ends the run failed, naming it, instead of crashing it.
    fake.respond = async (req) =>
      task(req) === "plan"
        ? { status: 400, body: JSON.stringify({ error: { message: "this model does not take tools" } }) }
        : answer(req);
    // A kitchen of its own: the one above has its task done.
    const fresh = await startSim(["--scenario", "integration_tea_to_trash", "--speed", "max"]);
    const run = await agent(
      ["--bridge-url", fresh.url, "--thread", thread, "--data-dir", data, "--runs-dir", runs, "--quiet", "--forget"],
      undefined,
      { ...process.env, ...env() },
    ).finally(() => fresh.stop());
    expect(run.code, run.out).toBe(2);
    const summary = JSON.parse(readFileSync(join(runs, thread, "summary.json"), "utf8"));
    expect(summary.status).toBe("failed");
    expect(summary.statusReason).toMatch(/^planner: the planner model \(local-vlm at .*\) failed: 400/);
    expect(summary.modelCalls).toBe(fake.requests.length);
    expect(summary.modelCallOutcomes).toEqual({ ok: fake.requests.length - 1, http_400: 1 });
  }, 120_000);
});
