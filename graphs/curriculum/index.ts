/** Game On's curriculum as the product knows it (graphs/method.ts): its run lines and summary. */
import type { CurriculumStateType } from "./state";
import { CURRICULUM_VARIANTS, CurriculumConfiguration } from "./configuration";
import { compileCurriculum } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { curriculumReport } from "./report";

/** What one node did, in a line. */
export function describeCurriculum(
  node: string,
  u: Partial<CurriculumStateType>,
  s: CurriculumStateType | undefined,
): Line {
  return { node, text: curriculumText(node, u, s) };
}

function curriculumText(node: string, u: Partial<CurriculumStateType>, s: CurriculumStateType | undefined): string {
  switch (node) {
    case "begin":
      return u.library ? `library: ${u.library.map((l) => l.caption).join(", ")}` : "";
    case "propose":
      return u.current
        ? `propose #${u.current.cycle}: "${u.current.proposal.task}"`
        : u.status
          ? `${u.status}: ${u.statusReason}`
          : "";
    case "decompose":
      return u.current?.decomposition
        ? `decompose: [${u.current.decomposition.steps.join(", ")}]`
        : u.status
          ? `${u.status}: ${u.statusReason}`
          : "";
    case "retrieve": {
      const rec = (u.cycles as unknown as CurriculumStateType["cycles"] | undefined)?.[0] ?? u.current;
      const r = rec?.retrievals?.map((x) => x.skill ?? `✗ ${x.step}`).join(", ");
      const newTargets = Object.keys(u.targets ?? {}).filter((k) => !s?.targets[k]);
      return `retrieve: [${r ?? ""}]${u.plan ? " → embody" : " → discarded"}${newTargets.length ? `; now learning: ${newTargets.join(", ")}` : ""}`;
    }
    case "tally": {
      const rec = (u.cycles as unknown as CurriculumStateType["cycles"] | undefined)?.[0];
      return rec?.outcome?.kind === "embodied"
        ? `embodied "${rec.proposal.task}": ${rec.outcome.successes}/${rec.outcome.episodes} succeeded`
        : "";
    }
    case "learn":
      return u.targets
        ? `learn #${u.counters?.iterations}: ${Object.values(u.targets)
            .filter((t) => !t.converged && t.returns.length)
            .map((t) => `${t.caption} ${t.returns.at(-1)!.toFixed(1)}/${t.maxReturn}`)
            .join(", ")}`
        : "";
    case "analyse": {
      const joined = (u.library ?? []).filter((l) => !s?.library.some((x) => x.caption === l.caption));
      const verdicts = Object.values(u.targets ?? {}).filter(
        (t) => t.analyses.at(-1)?.iteration === s?.counters.iterations && !s?.targets[t.caption]?.converged,
      );
      return `analyse: ${verdicts.map((t) => `${t.caption} ${t.analyses.at(-1)!.converged ? "YES" : "no"}`).join(", ") || "nothing to judge"}${joined.length ? ` → library + ${joined.map((l) => l.caption).join(", ")}` : ""}`;
    }
  }
  return "";
}

/** What each run of it is given: its settings (Studio's form) and its part of the offline reasoner. */
const runtime = { configuration: CurriculumConfiguration, reasoner: TASKS };

export const curriculum: Method = {
  id: "curriculum",
  graph: "curriculum",
  title: "Game On",
  paper: "Game On: Towards Language Models as RL Experimenters",
  about: "Game On: a VLM-run curriculum that learns block skills (blocks world; starts its own simulators)",
  tool: "run_curriculum",
  kind: "campaign",
  world: "blocks",
  // Its runs are campaigns of their own (npm start -- --graph curriculum), not dataset episodes.
  datasets: [],
  variants: CURRICULUM_VARIANTS,
  configuration: CurriculumConfiguration,
  nodes: ["begin", "propose", "decompose", "retrieve", "rollout", "tally", "learn", "analyse"],
  // The learner runs its own base skills: nothing in it asks for approval.
  approvals: false,
  report: curriculumReport,
  runtime,
  compile: (checkpointer, store) => compileCurriculum(runtime, checkpointer, store),
  input: () => ({ goal: "master the blocks in the basket" }),
  describe: (node, u, before) =>
    describeCurriculum(node, u as Partial<CurriculumStateType>, before as CurriculumStateType | undefined),
  summarize: (state) => ({
    steps: (state as Partial<CurriculumStateType> | undefined)?.counters?.episodes ?? 0,
    replans: 0,
  }),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = curriculum.compile();
