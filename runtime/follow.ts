/**
 * Following a graph's run: one consumer of its "updates", "values" and "custom" streams for everything that runs a
 * graph (the episode runner, the curriculum). Each node's update is handed over with the state before it (what a line
 * describing it reads); the state after each step is handed over as it comes, so a caller that is stopped mid-run
 * still holds the last one.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import type { StateSnapshot } from "@langchain/langgraph";

/** What a run uses of a compiled graph, whatever its state (every method's graph is one). */
export interface RunnableGraph {
  stream(input: unknown, options?: Record<string, unknown>): Promise<AsyncIterable<unknown>>;
  getState(config: RunnableConfig): Promise<StateSnapshot>;
  getStateHistory(config: RunnableConfig): AsyncIterable<StateSnapshot>;
}

export interface Follower<S> {
  /** A node's update, with the state before it (undefined before the first step). */
  update(node: string, update: Record<string, unknown>, before: S | undefined): void;
  /** The state after a step. */
  state(state: S): void;
  /** After each step's updates (a progress line). */
  stepped?(): void;
  /** What a node wrote to the custom stream while it ran (a skill's feedback). */
  custom?(chunk: unknown): void;
}

export async function follow<S>(
  graph: RunnableGraph,
  input: unknown,
  config: Record<string, unknown>,
  follower: Follower<S>,
  state?: S,
): Promise<void> {
  let latest = state;
  for await (const chunk of await graph.stream(input, { ...config, streamMode: ["updates", "values", "custom"] })) {
    const [mode, data] = chunk as [string, Record<string, unknown>];
    if (mode === "custom") {
      follower.custom?.(data);
      continue;
    }
    if (mode === "values") {
      latest = data as unknown as S;
      follower.state(latest);
      continue;
    }
    // An interrupt (a skill waiting for approval) is not a node's update: the caller asks for the answer after.
    for (const [node, update] of Object.entries(data))
      if (node !== "__interrupt__") follower.update(node, update as Record<string, unknown>, latest);
    follower.stepped?.();
  }
}
