/**
 * The symbolic backend as a LangChain chat model: same interface and same structured answers as a real VLM, so
 * every graph runs offline, in tests and in Studio. It reads only the context block of the prompt.
 */
import { createHash } from "node:crypto";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { readContext } from "../context";
import * as r from "./clea";
import * as h from "./replan";
import * as v from "./vlmpc";
import { KeyedDraw, NO_NOISE, type Draw, type NoiseKnobs } from "./noise";

export class SymbolicChatModel extends BaseChatModel {
  constructor(readonly seed = 0, readonly noise: NoiseKnobs = NO_NOISE) {
    super({});
  }

  /** Which reasoning each node's task calls for; noise reaches only the roles the knobs describe. */
  private answer(ctx: any, rng: Draw): unknown {
    const tasks: Record<string, () => unknown> = {
      // CLEA
      perceive: () => r.perceive(ctx, this.noise, rng),
      summarize: () => r.summarize(ctx),
      plan: () => r.plan(ctx, this.noise, rng),
      verify: () => r.verify(ctx),
      critique: () => r.critique(ctx, this.noise, rng),
      check_goal: () => r.checkGoal(ctx),
      // RePLan's hierarchical mode
      scan: () => h.scan(ctx, this.noise, rng),
      high_level_plan: () => h.highLevelPlan(ctx, this.noise, rng),
      verify_plan: () => h.verifyPlan(ctx),
      vision_questions: () => h.visionQuestions(ctx),
      vision_answer: () => h.answer(ctx, this.noise, rng),
      step_check: () => h.stepCheck(ctx),
      motion_draft: () => h.motionDraft(ctx, this.noise, rng),
      check_terms: () => h.checkTerms(ctx),
      diagnose: () => h.diagnose(ctx, this.noise, rng),
      check_names: () => h.checkNames(ctx),
      consolidate: () => h.consolidate(ctx),
      task_done: () => h.taskDone(ctx),
      // VLM-PC
      plan_course: () => v.planCourse(ctx, this.noise, rng),
    };
    const task = tasks[ctx.task];
    if (!task) throw new Error(`the symbolic reasoner has no task ${ctx.task}`);
    return task();
  }

  _llmType(): string {
    return "robograph-symbolic";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const ctx = readContext(messages) as any;
    const rng = new KeyedDraw(`${this.seed}|${createHash("sha256").update(JSON.stringify(ctx)).digest("hex")}`);
    const answer = this.answer(ctx, rng);
    const text = JSON.stringify(answer);
    const promptChars = messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : JSON.stringify(m.content).length), 0);
    // Token counts are estimates (4 characters a token), kept so prompt sizes can be compared across variants.
    const usage = { input_tokens: Math.ceil(promptChars / 4), output_tokens: Math.ceil(text.length / 4), total_tokens: Math.ceil((promptChars + text.length) / 4) };
    return { generations: [{ text, message: new AIMessage({ content: text, usage_metadata: usage }) }] };
  }
}
