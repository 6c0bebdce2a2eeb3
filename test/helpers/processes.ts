/** Real simulator processes on loopback with free ports, always stopped (see robots/sim/process.ts). */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";

export type { SimProcess };
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const startSim = (args: string[] = [], timeoutMs?: number) => startSimProcess("kitchen", args, timeoutMs);

/** Every process under `pid`, with its command line (Linux's /proc). */
export function descendants(pid: number): { pid: number; argv: string[] }[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      // The parent is the 4th field after the command's name in parentheses.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const under = (child: number): boolean => {
    const parent = parentOf.get(child);
    return parent === pid || (parent !== undefined && parent > 1 && under(parent));
  };
  return [...parentOf.keys()].filter(under).flatMap((child) => {
    try {
      return [{ pid: child, argv: readFileSync(`/proc/${child}/cmdline`, "utf8").split("\0") }];
    } catch {
      return [];
    }
  });
}

/** Whether process `pid` still runs (a zombie, exited but not yet reaped, does not). */
export function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/**
 * Another machine's timing, at no CPU cost: the simulators under this process (`robots/sim/main`) are frozen in turn
 * (SIGSTOP, then SIGCONT after `pauseMs`), so which one answers first, and when, differs from an unperturbed run. It
 * replaces busy-loop processes, which cost the shared machine a core each for the whole run and perturbed less: a
 * stalled simulator is a far slower one. Pauses stay well inside a robot's liveness window (2 s). `stop` resumes
 * every process and says how many stalls there were, so a test can show its run was perturbed.
 */
export function stallSimulators(opts: { pauseMs?: number; gapMs?: number } = {}): { stop(): number } {
  const pauseMs = opts.pauseMs ?? 150;
  const gapMs = opts.gapMs ?? 100;
  let stalls = 0;
  let turn = 0;
  let frozen: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
      return true;
    } catch {
      return false; // exited meanwhile
    }
  };
  const thaw = () => {
    if (frozen !== undefined) signal(frozen, "SIGCONT");
    frozen = undefined;
  };
  const freezeNext = () => {
    const sims = descendants(process.pid)
      .filter(({ argv }) => argv.some((a) => a.includes("robots/sim/main")))
      .sort((a, b) => a.pid - b.pid);
    const sim = sims.length ? sims[turn++ % sims.length] : undefined;
    if (sim && signal(sim.pid, "SIGSTOP")) {
      frozen = sim.pid;
      stalls++;
      timer = setTimeout(() => {
        thaw();
        timer = setTimeout(freezeNext, gapMs);
      }, pauseMs);
    } else timer = setTimeout(freezeNext, gapMs);
  };
  // A frozen simulator cannot notice its starter is gone: never leave one frozen.
  process.once("exit", thaw);
  timer = setTimeout(freezeNext, gapMs);
  return {
    stop() {
      clearTimeout(timer);
      thaw();
      process.off("exit", thaw);
      return stalls;
    },
  };
}
