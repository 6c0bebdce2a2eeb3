/** The reference ROS 1 stack for tests (robots/sim/rosStack.ts); skipped with a reason when not built. */
import { RobotManifest, type NamedPose, type SkillSpec } from "../../robots/manifests/schema";
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

/**
 * connect's draft of the rospy robot of standard messages (test/fixtures/ros/standard_robot.py) completed as a person
 * would: words, a measured pose, and the raw form of move_base beside the named one.
 */
export function completedStandardDraft(draft: RobotManifest): RobotManifest {
  const moveBase = draft.skills.find((s) => s.name === "move_base")!;
  const dock = draft.skills.find((s) => s.name === "dock")!;
  const named: SkillSpec = {
    ...moveBase,
    name: "go_to",
    description: "Drive the base to a named place.",
    goal: {
      ...moveBase.goal!,
      poses: {
        dock_front: { frame_id: "map", position: { x: 1, y: 0.5, z: 0 }, yaw: Math.PI / 2 },
        window: { frame_id: "map", position: { x: -0.4, y: 0.2, z: 0 }, yaw: 0 },
      },
    },
    parameters: {
      ...moveBase.parameters,
      properties: { navigation_point: { type: "string", description: "where to go", enum: ["dock_front", "window"] } },
    },
  };
  const raw: SkillSpec = {
    ...moveBase,
    goal: undefined,
    description: "Drive the base to a pose in map.",
    parameters: moveBase.goal!.message,
    timeoutSec: 30,
  };
  return RobotManifest.parse({
    ...draft,
    kind: "mobile_base",
    description: "A wheeled base with a camera.",
    skills: [{ ...dock, description: "Dock to the charger." }, named, raw],
  });
}
