/** Answers that model roles of several methods share: whether the task is done (CLEA's goal check, RePLan's task check). */
import { z } from "zod";

export const GoalCheck = z.object({
  achieved: z.boolean(),
  remaining: z.array(z.string()).describe("goal conditions not yet met"),
});
export type GoalCheck = z.infer<typeof GoalCheck>;
