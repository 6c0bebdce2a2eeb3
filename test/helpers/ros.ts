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
  options: { as?: Record<string, string>; poses?: Record<string, NamedPose> } = {},
): RobotManifest[] {
  return draft.map((drafted) => {
    const writtenManifest = written.find((m) => m.id === drafted.id)!;
    return {
      ...drafted,
      kind: writtenManifest.kind,
      description: writtenManifest.description,
      facts: writtenManifest.facts,
      names: writtenManifest.names,
      skills: drafted.skills.map((skill) => {
        const ws = writtenManifest.skills.find((x) => x.name === (options.as?.[skill.name] ?? skill.name))!;
        // A templated skill takes the planner's words as written; a drafted message's fields take the written values.
        const parameters = skill.goal
          ? ws.parameters
          : {
              ...skill.parameters,
              properties: Object.fromEntries(
                Object.entries(skill.parameters.properties).map(([k, property]) => [
                  k,
                  { ...property, ...ws.parameters.properties[k] },
                ]),
              ),
            };
        return {
          ...skill,
          name: ws.name,
          display: ws.display,
          aliases: ws.aliases,
          description: ws.description,
          parameters,
          ...(skill.goal ? { goal: { ...skill.goal, poses: options.poses ?? {} } } : {}),
          preconditions: ws.preconditions,
          effects: ws.effects,
          timeoutSec: ws.timeoutSec,
        };
      }),
    };
  });
}
