/** Game On's curriculum as the product knows it (graphs/method.ts): its run lines and summary. */
import type { CurriculumStateType } from "./state";
import { CURRICULUM_VARIANTS, CurriculumConfiguration } from "./configuration";
import { compileCurriculum } from "./graph";
import { TASKS } from "./reasoner";
import type { Line, Method } from "../method";
import { curriculumReport } from "./report";
import { CURRICULUM_FIGURES } from "./figures";
import { curriculumViewer } from "./viewer";
import { curriculumCampaign } from "./campaign";

/** What one node did, in a line. */
export function describeCurriculum(
  node: string,
  update: Partial<CurriculumStateType>,
  before: CurriculumStateType | undefined,
): Line {
  return { node, text: curriculumText(node, update, before) };
}

function curriculumText(
  node: string,
  update: Partial<CurriculumStateType>,
  before: CurriculumStateType | undefined,
): string {
  switch (node) {
    case "begin":
      return update.library ? `library: ${update.library.map((l) => l.caption).join(", ")}` : "";
    case "propose":
      return update.current
        ? `propose #${update.current.cycle}: "${update.current.proposal.task}"`
        : update.status
          ? `${update.status}: ${update.statusReason}`
          : "";
    case "decompose":
      return update.current?.decomposition
        ? `decompose: [${update.current.decomposition.steps.join(", ")}]`
        : update.status
          ? `${update.status}: ${update.statusReason}`
          : "";
    case "retrieve": {
      const rec = (update.cycles as unknown as CurriculumStateType["cycles"] | undefined)?.[0] ?? update.current;
      const skills = rec?.retrievals?.map((x) => x.skill ?? `✗ ${x.step}`).join(", ");
      const newTargets = Object.keys(update.targets ?? {}).filter((k) => !before?.targets[k]);
      return `retrieve: [${skills ?? ""}]${update.plan ? " → embody" : " → discarded"}${newTargets.length ? `; now learning: ${newTargets.join(", ")}` : ""}`;
    }
    case "tally": {
      const rec = (update.cycles as unknown as CurriculumStateType["cycles"] | undefined)?.[0];
      return rec?.outcome?.kind === "embodied"
        ? `embodied "${rec.proposal.task}": ${rec.outcome.successes}/${rec.outcome.episodes} succeeded`
        : "";
    }
    case "learn":
      return update.targets
        ? `learn #${update.counters?.iterations}: ${Object.values(update.targets)
            .filter((t) => !t.converged && t.returns.length)
            .map((t) => `${t.caption} ${t.returns.at(-1)!.toFixed(1)}/${t.maxReturn}`)
            .join(", ")}`
        : "";
    case "analyse": {
      const joined = (update.library ?? []).filter((l) => !before?.library.some((x) => x.caption === l.caption));
      const verdicts = Object.values(update.targets ?? {}).filter(
        (t) => t.analyses.at(-1)?.iteration === before?.counters.iterations && !before?.targets[t.caption]?.converged,
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
  campaign: curriculumCampaign,
  world: "blocks",
  // Its runs are campaigns of their own (npm start -- --graph curriculum), not dataset episodes.
  datasets: [],
  variants: CURRICULUM_VARIANTS,
  configuration: CurriculumConfiguration,
  nodes: ["begin", "propose", "decompose", "retrieve", "rollout", "tally", "learn", "analyse"],
  // The learner runs its own base skills: nothing in it asks for approval.
  approvals: false,
  report: curriculumReport,
  figures: CURRICULUM_FIGURES,
  viewer: curriculumViewer,
  runtime,
  compile: (checkpointer, store) => compileCurriculum(runtime, checkpointer, store),
  input: () => ({ goal: "master the blocks in the basket" }),
  describe: (node, update, before) =>
    describeCurriculum(node, update as Partial<CurriculumStateType>, before as CurriculumStateType | undefined),
  summarize: (state) => ({
    steps: (state as Partial<CurriculumStateType> | undefined)?.counters?.episodes ?? 0,
    replans: 0,
  }),
};

/** The graph the LangGraph server serves (langgraph.json): it supplies its own checkpointer. */
export const graph = curriculum.compile();
