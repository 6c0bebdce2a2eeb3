/**
 * The robots as a model is shown them: what each robot is, reaches and can do — skills with their arguments,
 * preconditions and effects — without what only the transport needs (action names and types, camera topics, time-outs,
 * approval flags, JSON-schema boilerplate). About half the tokens of the raw manifests, and the same in every request
 * of a run, so it goes first in a context block, where a provider's prompt cache can reuse it.
 */
import type { RobotManifest } from "../robots/manifests/schema";

const views = new WeakMap<RobotManifest[], unknown[]>();

export function robotsForModel(robots: RobotManifest[]): RobotManifest[] {
  let v = views.get(robots);
  if (!v) {
    v = robots.map(({ cameras: _cameras, skills, ...robot }) => ({
      ...robot,
      skills: skills.map(({ action: _action, actionType: _type, timeoutSec: _timeout, requiresApproval: _approval, parameters, ...skill }) => ({
        ...skill,
        parameters: {
          properties: Object.fromEntries(Object.entries(parameters.properties).map(([k, p]) => [k, p.enum ? (({ type: _t, ...rest }) => rest)(p) : p])),
          required: parameters.required,
        },
      })),
    }));
    views.set(robots, v);
  }
  // The symbolic reasoner reads the fields it needs from this view; a model reads it as text.
  return v as RobotManifest[];
}
