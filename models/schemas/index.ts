/**
 * What each model role answers, as zod schemas, one file per method: the openai backend asks for these as structured
 * output, the symbolic backend produces them, and nodes validate whatever comes back against them.
 */
export * from "./clea";
export * from "./replan";
export * from "./vlmpc";
export * from "./behaviorCritic";
