/** Real simulator processes on loopback with free ports, always stopped (see cli/simProcess). */
import { startSimProcess, type SimProcess } from "../../cli/simProcess";

export type { SimProcess };
export const startSim = (args: string[] = [], timeoutMs?: number) => startSimProcess("kitchen", args, timeoutMs);
