/** `robograph connect`'s pieces that need no robot: ROS type definitions as argument schemas and goal templates. */
import { describe, expect, it } from "vitest";
import { argumentSchemaOf, fieldList, poseTemplateOf } from "../../cli/connect";
import { argumentsValidator, SkillSpec } from "../../robots/manifests/schema";

/** What ROS 1's rosapi answers for move_base_msgs/MoveBaseGoal (message_details), as the reference rosapi gives it. */
const MOVE_BASE: { type: string; fieldnames: string[]; fieldtypes: string[]; fieldarraylen: number[] }[] = [
  {
    type: "move_base_msgs/MoveBaseGoal",
    fieldnames: ["target_pose"],
    fieldtypes: ["geometry_msgs/PoseStamped"],
    fieldarraylen: [-1],
  },
  {
    type: "geometry_msgs/PoseStamped",
    fieldnames: ["header", "pose"],
    fieldtypes: ["std_msgs/Header", "geometry_msgs/Pose"],
    fieldarraylen: [-1, -1],
  },
  {
    type: "std_msgs/Header",
    fieldnames: ["seq", "stamp", "frame_id"],
    fieldtypes: ["uint32", "time", "string"],
    fieldarraylen: [-1, -1, -1],
  },
  {
    type: "geometry_msgs/Pose",
    fieldnames: ["position", "orientation"],
    fieldtypes: ["geometry_msgs/Point", "geometry_msgs/Quaternion"],
    fieldarraylen: [-1, -1],
  },
  {
    type: "geometry_msgs/Point",
    fieldnames: ["x", "y", "z"],
    fieldtypes: ["float64", "float64", "float64"],
    fieldarraylen: [-1, -1, -1],
  },
  {
    type: "geometry_msgs/Quaternion",
    fieldnames: ["x", "y", "z", "w"],
    fieldtypes: ["float64", "float64", "float64", "float64"],
    fieldarraylen: [-1, -1, -1, -1],
  },
];

const skill = (parameters: unknown, goal?: unknown) =>
  SkillSpec.safeParse({
    name: "move_base",
    action: "/base/move_base",
    actionType: "move_base_msgs/MoveBase",
    transport: "actionlib",
    description: "drive",
    parameters,
    ...(goal ? { goal } : {}),
  });

describe("robograph connect", () => {
  it("expands a nested goal all the way down, stamps as ROS 1 writes them, and the draft validates goals by field", () => {
    const { schema, unsupported } = argumentSchemaOf("move_base_msgs/MoveBaseGoal", MOVE_BASE);
    expect(unsupported).toEqual([]);
    expect(fieldList(schema)).toEqual([
      "target_pose.header.seq",
      "target_pose.header.stamp.secs",
      "target_pose.header.stamp.nsecs",
      "target_pose.header.frame_id",
      "target_pose.pose.position.x",
      "target_pose.pose.position.y",
      "target_pose.pose.position.z",
      "target_pose.pose.orientation.x",
      "target_pose.pose.orientation.y",
      "target_pose.pose.orientation.z",
      "target_pose.pose.orientation.w",
    ]);
    // A header's seq and stamp take ROS's defaults when left out; everything else must be said.
    expect(schema.properties.target_pose.properties!.header.required).toEqual(["frame_id"]);
    expect(schema.properties.target_pose.properties!.header.properties!.seq).toMatchObject({
      type: "integer",
      minimum: 0,
      maximum: 4294967295,
    });
    // The draft is a valid skill as written, and its validator names the field that does not fit.
    const parsed = skill(schema);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    const validator = argumentsValidator(parsed.data!.parameters);
    const pose = { position: { x: 1, y: 2, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } };
    expect(validator.safeParse({ target_pose: { header: { frame_id: "map" }, pose } }).success).toBe(true);
    expect(
      validator.safeParse({ target_pose: { header: { frame_id: "map", stamp: { secs: 3, nsecs: 5 } }, pose } }).success,
    ).toBe(true);
    const bad = validator.safeParse({
      target_pose: {
        header: { frame_id: "map", seq: -1 },
        pose: { ...pose, position: { x: "far", y: 2, z: 0 }, orientaton: {} },
      },
    });
    expect(bad.error!.issues.map((i) => i.path.join("."))).toEqual(
      expect.arrayContaining(["target_pose.header.seq", "target_pose.pose.position.x", "target_pose.pose"]),
    );
    expect(validator.safeParse({ target_pose: { header: {}, pose } }).error!.issues[0].path.join(".")).toBe(
      "target_pose.header.frame_id",
    );
  });

  it("writes arrays as arrays (fixed ones of their length), byte arrays as base64 text, and names what rosapi leaves out", () => {
    const typedefs = [
      {
        type: "pkg/MoveGoal",
        fieldnames: ["target", "speed", "count", "careful", "waypoints", "covariance", "mask", "later", "thing"],
        fieldtypes: [
          "string",
          "float64",
          "int8",
          "bool",
          "geometry_msgs/Point",
          "float64",
          "uint8",
          "duration",
          "pkg/Unknown",
        ],
        fieldarraylen: [-1, -1, -1, -1, 0, 4, 0, -1, -1],
      },
      MOVE_BASE[4],
    ];
    const { schema, unsupported } = argumentSchemaOf("pkg/MoveGoal", typedefs);
    expect(schema.properties.waypoints).toMatchObject({
      type: "array",
      items: { type: "object", required: ["x", "y", "z"] },
    });
    expect(schema.properties.covariance).toEqual({
      type: "array",
      items: { type: "number" },
      minItems: 4,
      maxItems: 4,
    });
    expect(schema.properties.mask).toMatchObject({ type: "string" });
    expect(schema.properties.count).toEqual({ type: "integer", minimum: -128, maximum: 127 });
    expect(schema.required).toEqual(["target", "speed", "count", "careful", "waypoints", "covariance", "mask"]);
    expect(unsupported).toEqual(["thing (pkg/Unknown): rosapi gave no definition"]);
    expect(argumentSchemaOf("pkg/Missing", typedefs).unsupported).toEqual(["pkg/Missing: rosapi gave no definition"]);
    const validator = argumentsValidator(skill(schema).data!.parameters);
    expect(
      validator
        .safeParse({
          target: "a",
          speed: 1,
          count: 300,
          careful: true,
          waypoints: [],
          covariance: [1, 2, 3],
          mask: "AAE=",
        })
        .error!.issues.map((i) => i.path.join(".")),
    ).toEqual(["count", "covariance"]);
  });

  it("drafts a pose template for a goal that is one PoseStamped: valid as drafted, and a person's poses make it go", () => {
    const { schema } = argumentSchemaOf("move_base_msgs/MoveBaseGoal", MOVE_BASE);
    const template = poseTemplateOf("move_base_msgs/MoveBaseGoal", MOVE_BASE, schema)!;
    expect(template.goal.template).toEqual({ target_pose: { $pose: "navigation_point" } });
    expect(skill(template.parameters, template.goal).success).toBe(true);
    // With poses measured, the planner's argument takes their names as its values.
    const done = skill(template.parameters, {
      ...template.goal,
      poses: { dock: { frame_id: "map", position: { x: 1, y: 2 }, yaw: Math.PI / 2 } },
    });
    expect(done.data!.parameters.properties.navigation_point.enum).toEqual(["dock"]);
    // A pose that cannot make the message's goal is refused where the person wrote it.
    const wrong = skill(template.parameters, {
      ...template.goal,
      template: { target_pose: { $pose: "navigation_point" }, speed: 2 },
      poses: { dock: { frame_id: "map", position: { x: 1, y: 2 }, yaw: 0 } },
    });
    expect(wrong.error!.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")).toMatch(
      /goal.poses.dock: its goal does not fit the message: .*speed/,
    );
    expect(
      skill(template.parameters, { ...template.goal, template: { target_pose: { $pose: "where" } } }).error!.issues[0]
        .message,
    ).toMatch(/where is no argument of this skill/);
    expect(poseTemplateOf("geometry_msgs/Point", MOVE_BASE, schema)).toBeUndefined();
  });
});
