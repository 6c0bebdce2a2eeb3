/** What the run viewer shows of a Game On run: the plan in hand, the skills its task is decomposed into. */
import type { MethodViewer } from "../viewer";

export const curriculumViewer: MethodViewer = {
  panels: [
    {
      id: "plan-panel",
      title: "plan",
      values: { plan: { latest: "plan" } },
      when: ["plan"],
      blocks: [{ list: "plan", item: "{.}", ordered: true }],
    },
  ],
};
