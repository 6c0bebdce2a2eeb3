/** Real simulator processes on loopback with free ports, always stopped (see robots/sim/process.ts). */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSimProcess, type SimProcess } from "../../robots/sim/process";

export type { SimProcess };
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const startSim = (args: string[] = [], timeoutMs?: number) => startSimProcess("kitchen", args, timeoutMs);
