/** `robograph connect`'s pieces that need no robot: ROS type definitions as argument schemas, a frame's size. */
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { argumentSchemaOf, imageSize } from "../../cli/connect";

describe("robograph connect", () => {
  it("turns a goal's type definition into an argument schema, naming what a manifest cannot type", () => {
    const typedefs = [{ type: "pkg/MoveGoal", fieldnames: ["target", "speed", "count", "careful", "waypoints", "pose"], fieldtypes: ["string", "float64", "uint8", "bool", "float32", "geometry_msgs/Pose"], fieldarraylen: [-1, -1, -1, -1, 0, -1] }];
    const { schema, unsupported } = argumentSchemaOf("pkg/MoveGoal", typedefs);
    expect(schema.properties).toEqual({ target: { type: "string" }, speed: { type: "number" }, count: { type: "integer" }, careful: { type: "boolean" }, waypoints: { type: "array", items: { type: "number" } } });
    expect(schema.required).toEqual(["target", "speed", "count", "careful", "waypoints"]);
    expect(unsupported).toEqual(["pose (geometry_msgs/Pose)"]);
    expect(argumentSchemaOf("pkg/Missing", typedefs).unsupported).toEqual(["pkg/Missing: rosapi gave no definition"]);
  });

  it("reads a PNG frame's width and height from its header", () => {
    const ihdr = Buffer.alloc(13);
    ihdr.writeUInt32BE(320, 0);
    ihdr.writeUInt32BE(240, 4);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from([0, 0, 0, 13]), Buffer.from("IHDR"), ihdr, deflateSync(Buffer.alloc(1))]);
    expect(imageSize(png.toString("base64"))).toEqual({ width: 320, height: 240 });
    expect(imageSize(Buffer.from("not an image").toString("base64"))).toBeUndefined();
  });
});
