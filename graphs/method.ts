/**
 * What the rest of the product knows of a method: one descriptor per method (graphs/<id>/index.ts), listed once in
 * graphs/index.ts. The CLI, the experiment runner, the report writers, reproduce, the viewer, the recorder, the bench
 * and the MCP server look a method up there instead of naming it, so a sixth method is its folder, a line in METHODS
 * and its langgraph.json entry (test/graphs/sixth.int.test.ts).
 */
import type { BaseCheckpointSaver, BaseStore } from "@langchain/langgraph";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { z } from "zod";
import type { ArtifactStore } from "../memory/artifacts";
import type { MethodRuntime, Run } from "../runtime/run";
import type { RunnableGraph } from "../runtime/follow";
import type { SpeculatingNodes } from "../nodes/speculation";
import type { MethodReport } from "./report";
import type { Figure } from "./figure";
import type { MethodViewer } from "./viewer";

/** A method's short id, as experiments and records use it (graphs/index.ts lists the methods). */
export type MethodId = string;

/** One node update, in words. */
export interface Line {
  node: string;
  text: string;
}

/** What callers use of a compiled graph, whatever its state. */
export interface MethodGraph extends RunnableGraph {
  invoke(input: unknown, options?: Record<string, unknown>): Promise<unknown>;
}

/** A frame a step's update names, as a run record keeps it (copied from the artifact store under `file`). */
export interface StepFrame {
  /** The artifact reference (sha256:…). */
  image: string;
  /** Where the record keeps its copy, relative to the run's folder. */
  file: string;
  /** The robot whose latest detections may be kept beside it; true: whichever robot's latest view it is. */
  detectionsOf?: string | true;
}

/** A section of a run's report: the frames a step kept and what to say under them. */
export interface StepFrames {
  frames: StepFrame[];
  markdown: string;
}

/** A task of a method's world the latency bench runs it on (evals/bench/latency.ts): what a hosted model costs per skill. */
export interface BenchScene {
  /** How the bench's figures name the run. */
  label: string;
  /** The scenario of its world (its instruction is the goal). */
  scenario: string;
  /** The counter of its state's `counters` that counts the skills sent to the robot. */
  skillsCounter: string;
  /** Held to the call and token targets of a skill (critical-path calls ≤ 2.5, input tokens ≤ 3000). */
  targets: boolean;
  /** Run pipelined too (configurable.pipeline), held to this many round trips per skill while the robot waits between skills. */
  pipelinedTarget?: number;
  /**
   * Also run pipelined over the generated worlds of this dataset in the tuning range its figures declare (never the
   * scored one): the mean of the same figure over many tasks (`npm run bench -- --kitchens N`).
   */
  generatedDataset?: string;
}

/** An option of a campaign's command that sets one of its settings under the campaign's own name (`--budget-episodes`). */
export interface CampaignBudget {
  flag: string;
  /** The configuration key it sets. */
  setting: string;
  /** Its default on the command line (a campaign run's, which may be longer than the form's). */
  default: number;
  help: string;
}

/**
 * How a campaign runs (kind "campaign"): the campaign runner (cli/campaign.ts) starts its world's simulators, runs its
 * graph until a budget ends it, shows its progress and asks it for its record; everything of the method is here.
 */
export interface Campaign {
  /** What a run of it does, for its --help. */
  about: string;
  /** Its budgets, by the names its command and figures use; the first is what its progress bar counts to. */
  budgets: readonly [CampaignBudget, ...CampaignBudget[]];
  /** The setting the runner fills with its simulators' bridge URLs (so it is no flag). */
  instancesSetting: string;
  /** One simulator's own arguments: instance i of a run with this seed, recording episodes to episodesDir. */
  simulatorArgs(i: number, seed: number, episodesDir: string): string[];
  /** What its event log keeps of a node's update (undefined: all of it). */
  logged?(node: string, update: Record<string, unknown>): Record<string, unknown>;
  /** How far a run is: what the bar counts and the words beside it. */
  progress(state: Record<string, unknown>): { done: number; text: string };
  /** Writes its record into runDir (facts: what the runner knows of the run) and returns its closing lines. */
  finish(
    runDir: string,
    state: Record<string, unknown>,
    facts: Record<string, unknown>,
    run: Run | undefined,
  ): Promise<string>;
  /** A finished run did what it is for (exit code 0; 2 otherwise). */
  achieved(state: Record<string, unknown>): boolean;
}

export interface Method {
  id: MethodId;
  /** The graph's name in langgraph.json and `--graph`. */
  graph: string;
  /** Its name in records and reports. */
  title: string;
  /** The paper it implements, by its title. */
  paper: string;
  /** One line on what it does (the MCP tool's description). */
  about: string;
  /** The MCP tool that runs it. */
  tool: string;
  /** The world its robots live in (its simulator is the world of that name; a real robot serves it the same way). */
  world: string;
  /** The experiment datasets it is measured on (`npm run eval -- --dataset NAME`; paraphrases has rows of two methods). */
  datasets: readonly string[];
  /** The full method first, then its ablations and baselines. */
  variants: readonly [string, ...string[]];
  /**
   * Its run configuration (Studio's assistant form): the shared settings and its own. Its own are declared there alone:
   * the command line's flags and --help, MCP's tool arguments and an experiment's settings are made from it.
   */
  configuration: z.ZodObject<z.ZodRawShape>;
  /** How a run of it goes, if it is a campaign. */
  campaign?: Campaign;
  /**
   * Own settings a scenario decides when the caller gives none (VLM-PC's labelled examples are the course's): their
   * keys (an experiment takes no flag for them: each row's scenario decides), and their values for a scenario.
   */
  scenarioSettings?: {
    keys: readonly string[];
    of(scenario: string, variant: string): Record<string, unknown>;
  };
  /** What a run may start from besides its goal (`--program FILE`, MCP's `program`), in words; undefined: its goal alone. */
  startsFrom?: string;
  /** Its nodes, in the order its algorithm box names them. */
  nodes: readonly string[];
  /** Whether its skills can pause for a person's approval (`--approve`). */
  approvals: boolean;
  /** Its task is done well only if the robot's event log shows nothing undesirable either (behaviour is what it is judged on). */
  cleanRollout?: boolean;
  /**
   * Its model nodes that read only the state, the manifests and images (not the camera), replayed on contexts recorded
   * from a run of it on `scenario` (test/nodes/recorded.test.ts, recorded by test/fixtures/recordNodes.ts).
   */
  recordable?: { scenario: string; nodes: Record<string, (state: never, config: RunnableConfig) => Promise<unknown>> };
  /** What it publishes: its report's tables and schema, the paper's tables, its measures of an episode, its charts. */
  report: MethodReport;
  /** The figures `npm run reproduce` makes of it (docs/results/<figure>.md and the docs' marked regions), if any. */
  figures?: readonly Figure[];
  /** What the run viewer's step view shows of its runs besides each step's update: its panels, its timeline's marks. */
  viewer?: MethodViewer;
  /** Its nodes that clear an action, where it pipelines (configurable.pipeline): what a trace's speculation is measured by. */
  speculation?: SpeculatingNodes;
  /** Its tasks in the latency bench (`npm run bench -- --latency-only`), if it is measured there. */
  benchScenes?: readonly BenchScene[];
  /** What each run of it is given: its settings' schema (the configuration above) and its part of the offline reasoner. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each method's runtime keeps its own settings type: callers hand `clea.runtime` back where MethodRuntime<CleaSettings> is needed (its graph builder, openRun, inRun), and only `any` both holds every method's and gives it back
  runtime: MethodRuntime<any>;
  compile(checkpointer?: BaseCheckpointSaver, store?: BaseStore): MethodGraph;
  /** The graph's input for an instruction. */
  input(goal: string, extra?: { program?: unknown }): Record<string, unknown>;
  /** One readable line per node update; `before` is the state before it where the caller has it. */
  describe(node: string, update: Record<string, unknown>, before?: unknown): Line;
  /** The frames a step's update names, for a run's report (undefined: none). */
  framesOf?(
    node: string,
    update: Record<string, unknown>,
    n: number,
    text: string,
    artifacts: ArtifactStore,
  ): StepFrames[];
  /** What a run's summary says of its effort beyond status and usage (steps first). */
  summarize(state: Record<string, unknown> | undefined): { steps: number; replans: number } & Record<string, unknown>;
  /** What its final state adds to the status reason a run ends with (CLEA: the loops it broke), if anything. */
  explain?(state: Record<string, unknown>): string;
}
