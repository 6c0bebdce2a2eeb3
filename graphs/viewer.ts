/**
 * The run viewer's panels as a method declares them (`robograph view`; cli/viewer/app.js draws them and knows no
 * method): which fields of the run so far each shows — folded from the steps' updates up to the step on screen — and
 * how it is titled and laid out. Plain data, sent by the view server to the page as it is. What a record's updates do
 * not hold in a shape to show (a skill's result, a motion's residuals in the world's log) the method's `fields` adds to
 * each step, on the server.
 */

/** How a panel's value is folded from the steps up to the one shown (a field of the update, or of `fields`). */
export type Fold =
  /** What the last step that wrote the field left; `nonEmpty`: only writes of something (not null, not an empty list). */
  | { latest: string; nonEmpty?: boolean; initial?: unknown }
  /** Every list written to the field, without repeats. */
  | { union: string }
  /** Every list written to the field, one after another. */
  | { append: string }
  /** The field as the step shown wrote it. */
  | { thisStep: string };

/**
 * A text with places: `{path}` a field of what is shown (`{.}` the item itself), `{path|call}` a skill call,
 * `{path|fixed:N}` a number to N places, `{path|or:TEXT}` TEXT where the field is empty, `{path|join:SEP}` a list.
 */
export type Template = string;

/** A test of what is shown: a path alone holds where the field is truthy (set, and not empty text, zero or false). */
export type Test =
  | string
  | { path: string; is: string | number | boolean | null }
  | { path: string; isNot: string | number | boolean | null };

/** A piece of a line: text, bold (marked good where `good` holds and bad where not), or code. */
export type Segment = Template | { bold: Template; good?: Test } | { code: Template };

export interface Column {
  head: string;
  cell: Template | Segment[];
  /** A number, set right. */
  num?: boolean;
  /** The cell marked good where the test holds of its row, bad where not. */
  good?: Test;
  /** The cell marked bad where the test holds of its row. */
  bad?: Test;
}

/** What a panel shows, block by block; `if`: only where the test holds. */
export type Block =
  /** A line of segments; `muted`: greyed. */
  | { line: Template | Segment[]; muted?: boolean; if?: Test }
  /** A list of a field's items (where the field is a list), each a template; `cursor`: a value whose number marks the current item (those before it past). */
  | { list: string; item: Template; ordered?: boolean; cursor?: string; code?: boolean; if?: Test }
  /** A field's items on one line, joined by `separator`. */
  | { joined: string; item: Template; separator: string; muted?: boolean; if?: Test }
  /** A table of a field's items, a column each; a row whose field `current` is the step shown is marked. */
  | { table: string; columns: Column[]; current?: string; class?: string }
  /** For each of a field's items, its blocks (templates and tests read the item). */
  | { each: string; blocks: Block[] };

export interface ViewerPanel {
  /** Its element's id, where links and tests find it. */
  id?: string;
  /** Its heading; `{at}` is the step its values were last written at. */
  title: Template;
  /** Its values by name, each folded from the run so far; templates and tests read them by these names. */
  values: Record<string, Fold>;
  /** Shown where any of these paths holds (default: any of its values). */
  when?: string[];
  /** Not shown at the steps of these nodes (where another panel says the same). */
  hiddenAt?: string[];
  /** A diagnosis's look, or an alert's; `alertIf`: an alert where the test holds. */
  look?: "diag" | "alert";
  alertIf?: Test;
  blocks: Block[];
}

/** One step of a run record as the view server reads it. */
export interface ViewedStep {
  n: number;
  node: string;
  update: Record<string, unknown>;
}

/** A step's mark on the run's timeline (besides the status a run ends with, which marks itself). */
export type StepMark = "objection" | "failed" | "diagnosis";

/** What the run viewer shows of a method's runs beyond each step's own update and line. */
export interface MethodViewer {
  /** Its panels, in the order the step view shows them (after the step's own). */
  panels: readonly ViewerPanel[];
  /**
   * What each step adds to the fields its panels read, beyond its update (one object per step, in order): a skill's
   * result in the one shape the skill-results panel reads, texts only the method can write. Named apart from its
   * state's channels: a field of a channel's name stands for the update's in the panels (RePLan's motion, its terms
   * as text).
   */
  fields?(steps: readonly ViewedStep[], worldEvents: readonly { detail: string }[] | null): Record<string, unknown>[];
  mark?(node: string, update: Record<string, unknown>): StepMark | undefined;
}

/** A number as the viewer prints it: to `digits` places, a dash where there is none. */
export const fixed = (x: unknown, digits = 1) =>
  typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–";

/** A skill call as the viewer prints it: robot.skill(arguments). */
export const callText = (call: { robot: string; skill: string; args?: Record<string, unknown> } | null | undefined) =>
  call ? `${call.robot}.${call.skill}(${Object.values(call.args ?? {}).join(", ")})` : "";

/** One skill's result, as the skill-results panel reads it (a method's `fields` writes them under `skillResults`). */
export function skillResult(result: { n: number; what: string; ok: boolean; message: string; seconds: unknown }) {
  return { ...result, outcome: `${result.ok ? "ok" : "FAILED"}: ${result.message}` };
}

/** Every skill result so far, the step shown's marked: the panel of every method that writes `skillResults`. */
export const SKILL_RESULTS_PANEL: ViewerPanel = {
  id: "results-panel",
  title: "skill results",
  values: { results: { append: "skillResults" } },
  when: ["results.length"],
  blocks: [
    {
      table: "results",
      current: "n",
      columns: [
        { head: "step", cell: "{n}", num: true },
        { head: "skill", cell: "{what}" },
        { head: "result", cell: "{outcome}", good: "ok" },
        { head: "s", cell: "{seconds|fixed:2}", num: true },
      ],
    },
  ],
};
