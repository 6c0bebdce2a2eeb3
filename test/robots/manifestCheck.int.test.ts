/**
 * A manifest file held to a real ROS robot (the rospy robot of standard messages, test/fixtures/ros/standard_robot.py,
 * behind the reference rosbridge and rosapi): connect's draft, completed as a person would, fits; SetBool's data
 * declared as a string and a misspelled action server are refused when the file is loaded (the library path and
 * `robograph run --manifest`) and by `robograph connect --check`, naming the skill and the field or the real name.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BridgeClient } from "../../robots/bridge/client";
import { ManifestMismatchError } from "../../robots/manifests/check";
import { MANIFEST_JSON_SCHEMA } from "../../robots/manifests/jsonSchema";
import { ManifestFile, type RobotManifest } from "../../robots/manifests/schema";
import { manifestsFromFile } from "../../tools/skills";
import { agent } from "../helpers/agent";
import { scratchDir } from "../helpers/episode";
import { ROOT } from "../helpers/processes";
import { completedStandardDraft, requireRosOrSkip, startRos, type RosStack } from "../helpers/ros";
import { programArgs } from "../../robots/programs";

const ROBOT = join(ROOT, "test", "fixtures", "ros", "standard_robot.py");
const available = requireRosOrSkip();

const robograph = (args: string[]) => {
  const run = spawnSync(process.execPath, programArgs("cli/robograph.ts", args), {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 90_000,
  });
  return { code: run.status, out: run.stdout + run.stderr };
};

const STRING_DATA = /base\/set_brake: argument "data" is declared string but std_srvs\/SetBool's request has bool data/;
const MISSPELLED =
  /base\/go_to: rosapi lists no action server \/base\/move_bas; the nearest real one is \/base\/move_base \(an action server\)/;

describe.skipIf(!available)("a manifest file checked against the robot it describes", () => {
  let ros: RosStack;
  let client: BridgeClient;
  let dir: string;
  let draftText: string;
  let right: RobotManifest;
  const file = (name: string, robot: RobotManifest, world?: object) => {
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify({ robots: [robot], ...(world ? { world } : {}) }, null, 1));
    return path;
  };

  beforeAll(async () => {
    ros = await startRos();
    await ros.node(ROBOT);
    client = await BridgeClient.connect(ros.url);
    dir = scratchDir();
    const drafted = robograph(["connect", ros.url, "--out", join(dir, "draft.json")]);
    expect(drafted.code, drafted.out).toBe(0);
    draftText = readFileSync(join(dir, "draft.json"), "utf8");
    const draft = ManifestFile.parse(JSON.parse(draftText)).robots[0];
    // Completed as test/robots/standard.int.test.ts completes it, with the brake service described too.
    const brake = draft.skills.find((s) => s.name === "set_brake")!;
    const completed = completedStandardDraft(draft);
    right = { ...completed, skills: [...completed.skills, { ...brake, description: "Engage or release the brakes." }] };
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await ros?.stop();
  }, 60_000);

  it("drafts SetBool's data as a boolean, in a file that names its JSON Schema", () => {
    const draft = JSON.parse(draftText) as { $schema: string; robots: RobotManifest[] };
    expect(join(dir, draft.$schema)).toBe(MANIFEST_JSON_SCHEMA);
    const brake = draft.robots[0].skills.find((s) => s.name === "set_brake")!;
    expect(brake).toMatchObject({ action: "/base/set_brake", actionType: "std_srvs/SetBool", transport: "service" });
    expect(brake.parameters.properties.data).toEqual({ type: "boolean" });
  });

  it("passes the completed draft, on load and by connect --check", async () => {
    const path = file("right.json", right);
    const loaded = await manifestsFromFile(client, path);
    expect(loaded.robots[0].skills.map((s) => s.name).sort()).toEqual(["dock", "go_to", "move_base", "set_brake"]);
    const checked = robograph(["connect", "--check", path, "--bridge-url", ros.url]);
    expect(checked.code, checked.out).toBe(0);
    expect(checked.out).toMatch(/fits the robot: base\/dock, base\/go_to, base\/move_base, base\/set_brake/);
    expect(checked.out).not.toMatch(/not checked|does not fit/);
  }, 60_000);

  it("refuses SetBool's data declared as a string, naming the skill and the field, on load and by connect --check", async () => {
    const wrong: RobotManifest = {
      ...right,
      skills: right.skills.map((spec) =>
        spec.name === "set_brake"
          ? {
              ...spec,
              parameters: { ...spec.parameters, properties: { data: { type: "string", enum: ["on", "off"] } } },
            }
          : spec,
      ),
    };
    const path = file("string-data.json", wrong);
    const refused = await manifestsFromFile(client, path).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ManifestMismatchError);
    expect((refused as ManifestMismatchError).message).toMatch(/string-data\.json does not fit the robot/);
    expect((refused as ManifestMismatchError).problems).toEqual([
      `base/set_brake: argument "data" allows "on" but std_srvs/SetBool's request has bool data ("on" is no bool)`,
      `base/set_brake: argument "data" allows "off" but std_srvs/SetBool's request has bool data ("off" is no bool)`,
      `base/set_brake: argument "data" is declared string but std_srvs/SetBool's request has bool data`,
    ]);
    const checked = robograph(["connect", ros.url, "--check", path]);
    expect(checked.code, checked.out).toBe(1);
    expect(checked.out).toMatch(STRING_DATA);
    expect(checked.out).toMatch(/fits the robot: base\/dock, base\/go_to, base\/move_base\n/);
  }, 60_000);

  it("refuses a misspelled action server naming the real one, on load by robograph run and by connect --check", async () => {
    const misspelled: RobotManifest = {
      ...right,
      skills: right.skills.map((s) => (s.name === "go_to" ? { ...s, action: "/base/move_bas" } : s)),
    };
    // A run needs a world and a goal before it opens the robot's session, where the file is held to the robot.
    const world = {
      name: "lab",
      places: [{ name: "charger", kind: "surface", openable: false }],
      navigationPoints: ["dock_front", "window"],
      labels: ["cup"],
    };
    const path = file("misspelled.json", misspelled, world);
    const run = await agent([
      "--bridge-url",
      ros.url,
      "--manifest",
      path,
      "--goal",
      "go to the window",
      "--data-dir",
      scratchDir(),
    ]);
    expect(run.code, run.out).toBe(1);
    expect(run.out).toMatch(MISSPELLED);
    const checked = robograph(["connect", "--check", path, ros.url]);
    expect(checked.code, checked.out).toBe(1);
    expect(checked.out).toMatch(MISSPELLED);
  }, 120_000);
});
