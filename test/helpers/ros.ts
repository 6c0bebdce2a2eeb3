/** The reference ROS 1 stack for tests (robots/sim/rosStack.ts); skipped with a reason when not built. */
import type { NamedPose, RobotManifest } from "../../robots/manifests/schema";
export { requireRosOrSkip, rosMissing, startRos, type RosStack, ROS_WS } from "../../robots/sim/rosStack";

/**
 * connect's draft of the kitchen completed as a person would, from the manifests they would have written: the robots'
 * words and facts, each skill's description, the values its arguments take, its rules and time limit. `as` gives a
 * drafted skill the planner's name (move_base is the base's go_to); `poses` are the ones the person measured, filled
 * into a drafted goal template.
 */
export function completedDraft(
  draft: RobotManifest[],
  written: RobotManifest[],
  o: { as?: Record<string, string>; poses?: Record<string, NamedPose> } = {},
): RobotManifest[] {
  return draft.map((d) => {
    const w = written.find((m) => m.id === d.id)!;
    return {
      ...d,
      kind: w.kind,
      description: w.description,
      facts: w.facts,
      names: w.names,
      skills: d.skills.map((s) => {
        const ws = w.skills.find((x) => x.name === (o.as?.[s.name] ?? s.name))!;
        // A templated skill takes the planner's words as written; a drafted message's fields take the written values.
        const parameters = s.goal
          ? ws.parameters
          : {
              ...s.parameters,
              properties: Object.fromEntries(
                Object.entries(s.parameters.properties).map(([k, p]) => [k, { ...p, ...ws.parameters.properties[k] }]),
              ),
            };
        return {
          ...s,
          name: ws.name,
          display: ws.display,
          aliases: ws.aliases,
          description: ws.description,
          parameters,
          ...(s.goal ? { goal: { ...s.goal, poses: o.poses ?? {} } } : {}),
          preconditions: ws.preconditions,
          effects: ws.effects,
          timeoutSec: ws.timeoutSec,
        };
      }),
    };
  });
}
