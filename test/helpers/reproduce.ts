/**
 * `npm run reproduce -- --check` on some of the quick figures (`--only`): the quick slices made again in a scratch
 * directory and compared with docs/results/quick/. The figures are checked in two groups, each by one process, in two
 * test files, so the two halves run side by side (test/cli/reproduce.int.test.ts, reproduceTabletop.int.test.ts).
 */
import { spawn } from "node:child_process";
import { FIGURES } from "../../cli/reproduce";
import { ROOT } from "./processes";
import { programArgs } from "../../robots/programs";

/** Every figure `--quick --check` makes (the full-only ones aside). */
export const QUICK_FIGURES = FIGURES.filter((f) => !f.fullOnly).map((f) => f.id);

/** RePLan's tabletop figures (the MPC's physics: about half the quick slices' work), checked by a file of their own. */
export const TABLETOP_FIGURES = ["tabletop", "tabletop-generated"];

/** Runs `robograph reproduce --check --only <ids>`: its exit code and everything it printed. */
export async function reproduceCheck(ids: string[]): Promise<{ code: number | null; said: string }> {
  const child = spawn(
    process.execPath,
    programArgs("cli/robograph.ts", ["reproduce", "--check", "--only", ids.join(",")]),
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let said = "";
  child.stderr.on("data", (d) => (said += d));
  child.stdout.on("data", (d) => (said += d));
  const code = await new Promise<number | null>((r) => child.on("exit", r));
  return { code, said };
}

/** The lines that say what differed (or what broke), for an assertion's message. */
export const differences = (said: string) =>
  said
    .split("\n")
    .filter((l) => /same as|DIFFERS|reproduce --check|Error|error/.test(l))
    .join("\n");
