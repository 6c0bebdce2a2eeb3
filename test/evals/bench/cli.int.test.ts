/** `robograph bench --help` and `npm run bench -- --help` print the options and exit 0 instead of starting the bench. */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { BENCH_HELP } from "../../../evals/bench";
import { programArgs } from "../../../robots/programs";

function run(command: string, args: string[]) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
}

describe("the bench's command line", () => {
  it("robograph bench --help prints the options and exits 0", async () => {
    const { code, out } = await run(process.execPath, programArgs("cli/robograph.ts", ["bench", "--help"]));
    expect(code).toBe(0);
    expect(out).toBe(BENCH_HELP);
  });

  it("npm run bench -- --help does the same", async () => {
    const { code, out } = await run("npm", ["run", "--silent", "bench", "--", "--help"]);
    expect(code).toBe(0);
    expect(out).toBe(BENCH_HELP);
  });

  it("an unknown option exits 2 naming it, having measured nothing", async () => {
    const { code, out, err } = await run(process.execPath, programArgs("cli/robograph.ts", ["bench", "--fast"]));
    expect(code).toBe(2);
    expect(err).toMatch(/^robograph bench: unknown option --fast\n/);
    expect(out).toBe("");
  });
});
