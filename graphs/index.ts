/**
 * Every method of the product, in one table: the CLI, the experiment runner, the report writers, the viewer, the
 * recorder, the bench, the MCP server and the langgraph.json check look methods up here (graphs/method.ts says what a
 * descriptor holds). A sixth method is its folder and a line below (and its langgraph.json entry).
 */
import type { Method, MethodId } from "./method";
import type { Reasoner } from "../models";
import { clea } from "./clea/index";
import { replan } from "./replan/index";
import { vlmpc } from "./vlmpc/index";
import { behaviorCritic } from "./behaviorCritic/index";
import { curriculum } from "./curriculum/index";

export type { BenchScene, Campaign, Line, Method, MethodGraph, MethodId, StepFrames } from "./method";

export const METHODS: readonly Method[] = [clea, replan, vlmpc, behaviorCritic, curriculum];

/** Every method's part of the offline reasoner, in one table (a stand-in endpoint that answers any method's requests). */
export const allReasoners = (): Reasoner => Object.assign({}, ...METHODS.map((m) => m.runtime.reasoner));

const byId = new Map(METHODS.map((m) => [m.id, m]));

/** A method by its id. */
export function method(id: MethodId): Method {
  const found = byId.get(id);
  if (!found) throw new Error(`no method ${id}; one of ${METHODS.map((x) => x.id).join(", ")}`);
  return found;
}

/** The method whose graph is named so (langgraph.json, --graph), or undefined. */
export const methodOfGraph = (graph: string): Method | undefined => METHODS.find((m) => m.graph === graph);

/** The method whose robots live in a world. */
export function methodOfWorld(world: string): Method {
  const found = METHODS.find((x) => x.world === world);
  if (!found)
    throw new Error(`no method runs in the ${world} world; worlds: ${METHODS.map((x) => x.world).join(", ")}`);
  return found;
}

/**
 * Which method wrote a run record, for records from before summaries named it: the first whose nodes include every
 * node in the record (a record cut short before any node ran is nobody's).
 */
export function methodOfNodes(nodes: string[]): Method | undefined {
  const ran = nodes.filter((n) => !n.startsWith("__"));
  if (!ran.length) return undefined;
  return METHODS.find((m) => ran.every((n) => m.nodes.includes(n)));
}
