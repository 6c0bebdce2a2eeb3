/**
 * A manifest held to rosapi's typedefs without a robot: how each ROS field type may be declared, how a mismatch is
 * worded (robot/skill, the field, both types), names checked against rosapi's lists, and refusals of a manifest file
 * that name robots and skills instead of indices.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifestFile } from "../../robots/manifests";
import { checkAgainstRobot, editDistance, nearestName, skillMessageIssues } from "../../robots/manifests/check";
import { issuePath } from "../../robots/manifests/issues";
import { argumentSchemaOf, type TypeDef } from "../../robots/manifests/rosTypes";
import { SkillSpec, type RobotManifest } from "../../robots/manifests/schema";
import { scratchDir } from "../helpers/episode";

const def = (type: string, fields: [string, string, number?][]): TypeDef => ({
  type,
  fieldnames: fields.map(([name]) => name),
  fieldtypes: fields.map(([, fieldType]) => fieldType),
  fieldarraylen: fields.map(([, , length]) => length ?? -1),
});

/** What ROS 1's rosapi answers for std_srvs/SetBool (service_request_details) and move_base_msgs/MoveBaseGoal. */
const SET_BOOL = [def("std_srvs/SetBoolRequest", [["data", "bool"]])];
const MOVE_BASE_GOAL = [
  def("move_base_msgs/MoveBaseGoal", [["target_pose", "geometry_msgs/PoseStamped"]]),
  def("geometry_msgs/PoseStamped", [
    ["header", "std_msgs/Header"],
    ["pose", "geometry_msgs/Pose"],
  ]),
  def("std_msgs/Header", [
    ["seq", "uint32"],
    ["stamp", "time"],
    ["frame_id", "string"],
  ]),
  def("geometry_msgs/Pose", [
    ["position", "geometry_msgs/Point"],
    ["orientation", "geometry_msgs/Quaternion"],
  ]),
  def("geometry_msgs/Point", [
    ["x", "float64"],
    ["y", "float64"],
    ["z", "float64"],
  ]),
  def("geometry_msgs/Quaternion", [
    ["x", "float64"],
    ["y", "float64"],
    ["z", "float64"],
    ["w", "float64"],
  ]),
];
/** A message of every kind of field: arrays free and fixed, bytes, small integers, a duration. */
const SCAN = [
  def("lab_msgs/ScanRequest", [
    ["ranges", "float32", 0],
    ["covariance", "float64", 9],
    ["blob", "uint8", 0],
    ["level", "uint8"],
    ["count", "int32"],
    ["gain", "float32"],
    ["label", "string"],
    ["timeout", "duration"],
    ["points", "geometry_msgs/Point", 0],
  ]),
  MOVE_BASE_GOAL[4],
];

const skill = (spec: Record<string, unknown>): SkillSpec =>
  SkillSpec.parse({
    name: "set_gripper",
    action: "/arm/set_gripper",
    actionType: "std_srvs/SetBool",
    transport: "service",
    description: "open or close",
    ...spec,
  });
const params = (properties: Record<string, unknown>) => ({ type: "object", properties });

describe("a skill's arguments against rosapi's typedefs", () => {
  it("refuses SetBool's data declared as a string, naming the skill and the field, and takes a boolean", () => {
    const wrong = skill({ parameters: params({ data: { type: "string" } }) });
    expect(skillMessageIssues("arm/set_gripper", wrong, SET_BOOL, "std_srvs/SetBool's request").problems).toEqual([
      `arm/set_gripper: argument "data" is declared string but std_srvs/SetBool's request has bool data`,
    ]);
    const right = skill({ parameters: params({ data: { type: "boolean", description: "true closes" } }) });
    expect(skillMessageIssues("arm/set_gripper", right, SET_BOOL, "std_srvs/SetBool's request")).toEqual({
      problems: [],
      unchecked: [],
    });
  });

  it("refuses a field the message does not have, suggesting the nearest", () => {
    const typo = skill({ parameters: params({ dat: { type: "boolean" } }) });
    expect(skillMessageIssues("arm/set_gripper", typo, SET_BOOL, "std_srvs/SetBool's request").problems).toEqual([
      `arm/set_gripper: argument "dat" is a field std_srvs/SetBool's request does not have (the message has data; did you mean data?)`,
    ]);
  });

  it("maps every primitive, array and nested message, and names each mismatch by its path", () => {
    const fits = skill({
      actionType: "lab_msgs/Scan",
      parameters: params({
        ranges: { type: "array", items: { type: "number" } },
        covariance: { type: "array", items: { type: "integer" }, minItems: 9, maxItems: 9 },
        blob: { type: "string", description: "base64" },
        level: { type: "integer", minimum: 0, maximum: 200, default: 10 },
        count: { type: "integer" },
        gain: { type: "integer" },
        label: { type: "string", enum: ["near", "far"] },
        timeout: { type: "object", properties: { secs: { type: "integer" }, nsecs: { type: "integer" } } },
        points: { type: "array", items: { type: "object", properties: { x: { type: "number" } } } },
      }),
    });
    expect(skillMessageIssues("lab/scan", fits, SCAN, "lab_msgs/Scan's request")).toEqual({
      problems: [],
      unchecked: [],
    });
    const wrong = skill({
      actionType: "lab_msgs/Scan",
      parameters: params({
        ranges: { type: "integer" },
        covariance: { type: "array", items: { type: "number" } },
        blob: { type: "array", items: { type: "string" } },
        level: { type: "integer", maximum: 300, default: -1 },
        count: { type: "number" },
        label: { type: "integer", enum: [1, 2] },
        timeout: { type: "integer" },
        points: {
          type: "array",
          items: { type: "object", properties: { x: { type: "boolean" }, w: { type: "number" } } },
        },
      }),
    });
    expect(skillMessageIssues("lab/scan", wrong, SCAN, "lab_msgs/Scan's request").problems).toEqual([
      `lab/scan: argument "ranges" is declared integer but lab_msgs/Scan's request has float32[] ranges`,
      `lab/scan: argument "covariance" takes 0 to any number of items but lab_msgs/Scan's request has float64[9] covariance, exactly 9: set minItems and maxItems to 9`,
      `lab/scan: argument "blob[]" is declared string but lab_msgs/Scan's request has uint8 blob[]`,
      `lab/scan: argument "level" defaults to -1 but lab_msgs/Scan's request has uint8 level (-1 is outside uint8 (0 to 255))`,
      `lab/scan: argument "level" is declared from any to 300 but lab_msgs/Scan's request has uint8 level (0 to 255)`,
      `lab/scan: argument "count" is declared number but lab_msgs/Scan's request has int32 count`,
      `lab/scan: argument "label" allows 1 but lab_msgs/Scan's request has string label (1 is no string)`,
      `lab/scan: argument "label" allows 2 but lab_msgs/Scan's request has string label (2 is no string)`,
      `lab/scan: argument "label" is declared integer but lab_msgs/Scan's request has string label`,
      `lab/scan: argument "timeout" is declared integer but lab_msgs/Scan's request has duration timeout`,
      `lab/scan: argument "points[].x" is declared boolean but lab_msgs/Scan's request has float64 points[].x`,
      `lab/scan: argument "points[].w" is a field lab_msgs/Scan's request does not have (points[] has x, y, z)`,
    ]);
  });

  it("reads ROS 2's spelling of primitives (double, boolean) as ROS 1's", () => {
    const typedefs = [def("std_srvs/srv/SetBool_Request", [["data", "boolean"]])];
    const wrong = skill({ actionType: "std_srvs/srv/SetBool", parameters: params({ data: { type: "number" } }) });
    expect(skillMessageIssues("arm/set_gripper", wrong, typedefs, "std_srvs/srv/SetBool's request").problems).toEqual([
      `arm/set_gripper: argument "data" is declared number but std_srvs/srv/SetBool's request has bool data`,
    ]);
  });

  it("passes connect's own draft of a nested goal, and its named-pose template with poses and defaults", () => {
    const { schema } = argumentSchemaOf("move_base_msgs/MoveBaseGoal", MOVE_BASE_GOAL);
    const raw = skill({ actionType: "move_base_msgs/MoveBase", transport: "actionlib", parameters: schema });
    expect(skillMessageIssues("base/move_base", raw, MOVE_BASE_GOAL, "move_base_msgs/MoveBase's goal")).toEqual({
      problems: [],
      unchecked: [],
    });
    const named = skill({
      actionType: "move_base_msgs/MoveBase",
      transport: "actionlib",
      parameters: params({ navigation_point: { type: "string", enum: ["dock"], default: "dock" } }),
      goal: {
        message: schema,
        template: { target_pose: { $pose: "navigation_point" } },
        poses: { dock: { frame_id: "map", position: { x: 1, y: 2 }, yaw: 0 } },
      },
    });
    expect(skillMessageIssues("base/go_to", named, MOVE_BASE_GOAL, "move_base_msgs/MoveBase's goal")).toEqual({
      problems: [],
      unchecked: [],
    });
  });

  it("checks a goal template: a pose where ROS has no PoseStamped, an argument of the wrong type, a constant", () => {
    const message = argumentSchemaOf("move_base_msgs/MoveBaseGoal", MOVE_BASE_GOAL).schema;
    const bad = skill({
      actionType: "move_base_msgs/MoveBase",
      transport: "actionlib",
      parameters: params({ place: { type: "string", enum: [] }, height: { type: "string" } }),
      goal: {
        message: {
          ...message,
          properties: {
            ...message.properties,
            target_pose: { type: "object", properties: { frame: { type: "string" } } },
          },
        },
        template: {
          target_pose: {
            header: { frame_id: 7, stamp: { secs: 0 } },
            pose: { position: { $pose: "place" }, orientation: { w: { $arg: "height" } } },
          },
        },
      },
    });
    expect(skillMessageIssues("base/go_to", bad, MOVE_BASE_GOAL, "move_base_msgs/MoveBase's goal").problems).toEqual([
      `base/go_to: goal.message field "target_pose.frame" is a field move_base_msgs/MoveBase's goal does not have (target_pose has header, pose)`,
      `base/go_to: goal.template has 7 at target_pose.header.frame_id but move_base_msgs/MoveBase's goal has string target_pose.header.frame_id (7 is no string)`,
      `base/go_to: goal.template puts a named pose (a geometry_msgs/PoseStamped) at target_pose.pose.position but move_base_msgs/MoveBase's goal has geometry_msgs/Point target_pose.pose.position`,
      `base/go_to: argument "height" (put in the goal at target_pose.pose.orientation.w) is declared string but move_base_msgs/MoveBase's goal has float64 target_pose.pose.orientation.w`,
    ]);
  });

  it("says what rosapi did not define instead of calling it a fit", () => {
    const nested = skill({ actionType: "lab_msgs/Scan", parameters: params({ points: { type: "array" } }) });
    const partial = [def("lab_msgs/ScanRequest", [["points", "geometry_msgs/Point", 0]])];
    expect(skillMessageIssues("lab/scan", nested, partial, "lab_msgs/Scan's request")).toEqual({
      problems: [],
      unchecked: [],
    });
    const deep = skill({
      actionType: "lab_msgs/Scan",
      parameters: params({ points: { type: "array", items: { type: "object", properties: {} } } }),
    });
    expect(skillMessageIssues("lab/scan", deep, partial, "lab_msgs/Scan's request").unchecked).toEqual([
      `lab/scan: argument "points[]" (geometry_msgs/Point): rosapi gave no definition of geometry_msgs/Point`,
    ]);
  });
});

describe("a manifest against rosapi's lists", () => {
  /** A rosapi of a ROS 1 robot: /arm/set_gripper (SetBool), /arm/move_arm (actionlib), no /rosapi/action_goal_details. */
  const rosapi = async <T>(service: string, args: Record<string, unknown> = {}): Promise<T> => {
    const answers: Record<string, unknown> = {
      "/rosapi/topics": {
        topics: ["/arm/move_arm/goal", "/arm/move_arm/cancel", "/rosout"],
        types: ["control_msgs/MoveArmActionGoal", "actionlib_msgs/GoalID", "rosgraph_msgs/Log"],
      },
      "/rosapi/services": {
        services: ["/arm/set_gripper", "/rosapi/service_request_details", "/rosapi/message_details"],
      },
      "/rosapi/action_servers": { action_servers: [] },
      "/rosapi/service_type": { type: args.service === "/arm/set_gripper" ? "std_srvs/SetBool" : "" },
      "/rosapi/service_request_details": { typedefs: args.type === "std_srvs/SetBool" ? SET_BOOL : [] },
      "/rosapi/message_details": { typedefs: [def("control_msgs/MoveArmGoal", [["speed", "float64"]])] },
    };
    if (!(service in answers)) throw new Error(`service ${service} does not exist`);
    return answers[service] as T;
  };
  const robot = (skills: Record<string, unknown>[]): Pick<RobotManifest, "id" | "skills"> => ({
    id: "arm",
    skills: skills.map((s) => skill(s)),
  });
  const check = (skills: Record<string, unknown>[]) =>
    checkAgainstRobot({ robots: [robot(skills) as RobotManifest] }, rosapi);

  it("refuses a misspelled service or action server naming the nearest real one, and a wrong transport", async () => {
    const report = await check([
      { action: "/arm/set_griper", parameters: params({ data: { type: "boolean" } }) },
      {
        name: "move",
        action: "/arm/move_arms",
        actionType: "control_msgs/MoveArm",
        transport: "actionlib",
        parameters: params({}),
      },
      { name: "grip", action: "/arm/move_arm", transport: "service", parameters: params({}) },
    ]);
    expect(report.problems).toEqual([
      "arm/set_gripper: rosapi lists no service /arm/set_griper; the nearest real one is /arm/set_gripper (a service)",
      "arm/move: rosapi lists no action server /arm/move_arms; the nearest real one is /arm/move_arm (an action server)",
      `arm/grip: /arm/move_arm is an action server, not a service: its transport is "actionlib" (ROS 1) or "action" (ROS 2)`,
    ]);
  });

  it("refuses a declared type that is not the robot's, and checks the fields of each message it finds", async () => {
    const report = await check([
      { actionType: "std_srvs/Trigger", parameters: params({}) },
      {
        name: "move",
        action: "/arm/move_arm",
        actionType: "control_msgs/MoveArm",
        transport: "actionlib",
        parameters: params({ speed: { type: "boolean" } }),
      },
      { name: "grip", parameters: params({ data: { type: "boolean" } }) },
    ]);
    expect(report.problems).toEqual([
      "arm/set_gripper: declared actionType std_srvs/Trigger but /arm/set_gripper is a std_srvs/SetBool",
      `arm/move: argument "speed" is declared boolean but control_msgs/MoveArm's goal has float64 speed`,
    ]);
    expect(report.fit).toEqual(["arm/grip"]);
  });

  it("lists a ROS 2 action as not checked when rosapi offers no goal typedefs (our simulators' bridge)", async () => {
    const report = await checkAgainstRobot(
      {
        robots: [
          robot([
            {
              name: "go",
              action: "/arm/move_arm",
              actionType: "x/action/Y",
              transport: "action",
              parameters: params({}),
            },
          ]) as RobotManifest,
        ],
      },
      rosapi,
    );
    expect(report).toEqual({
      problems: [],
      unchecked: ["arm/go: fields not checked: this rosapi offers no /rosapi/action_goal_details"],
      fit: [],
    });
  });

  it("measures names by edit distance", () => {
    expect(editDistance("/arm/set_griper", "/arm/set_gripper")).toBe(1);
    expect(editDistance("", "abc")).toBe(3);
    expect(nearestName("/base/move_bse", ["/base/dock", "/base/move_base", "/rosapi/topics"])).toBe("/base/move_base");
    expect(nearestName("/x", [])).toBeUndefined();
  });
});

describe("refusals of a manifest file", () => {
  it("name the robot and the skill, not their indices", () => {
    const raw = {
      robots: [
        {
          id: "arm",
          skills: [{ name: "open" }, { name: "set_gripper", parameters: { properties: { data: {} } } }],
        },
        { skills: [] },
      ],
      world: { places: [{ name: "shelf" }] },
    };
    expect(issuePath(raw, ["robots", 0, "skills", 1, "parameters", "properties", "data"])).toBe(
      'robot "arm", skill "set_gripper", parameters.properties.data',
    );
    expect(issuePath(raw, ["robots", 1, "skills"])).toBe("robot #2, skills");
    expect(issuePath(raw, ["world", "places", 0, "kind"])).toBe('world, place "shelf", kind');
    expect(issuePath(raw, ["robots", 0, "skills", 0, "preconditions", 0])).toBe(
      'robot "arm", skill "open", preconditions.0',
    );
  });

  it("when a file is loaded: the message names the skill and the field", () => {
    const file = join(scratchDir(), "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        robots: [
          {
            id: "arm",
            kind: "arm",
            description: "an arm",
            skills: [
              {
                name: "set_gripper",
                action: "/arm/set_gripper",
                actionType: "std_srvs/SetBool",
                transport: "service",
                description: "open or close",
                parameters: { type: "object", properties: { data: { type: "bool" } } },
              },
            ],
          },
        ],
      }),
    );
    expect(() => loadManifestFile(file)).toThrow(
      /manifest file .*bad\.json is invalid: robot "arm", skill "set_gripper", parameters\.properties\.data\.type: Invalid option/,
    );
  });
});
