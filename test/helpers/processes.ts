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
