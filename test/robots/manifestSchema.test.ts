/**
 * The manifest file's JSON Schema (robots/manifests/manifest.schema.json): committed as generated from the zod schema,
 * a valid draft-07 schema (Ajv in strict mode, as editors read it), and it agrees with zod on what a file may say.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import Ajv from "ajv";
import { describe, expect, it } from "vitest";
import { bundledManifests } from "../../robots/manifests";
import { MANIFEST_JSON_SCHEMA, manifestJsonSchemaText } from "../../robots/manifests/jsonSchema";
import { ManifestFile } from "../../robots/manifests/schema";
import { schemaReference } from "../../cli/connect";

const committed = () => readFileSync(MANIFEST_JSON_SCHEMA, "utf8");

/** The schema compiled as an editor's validator would take it: strict, every keyword known. */
function validator() {
  const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
  expect(ajv.validateSchema(JSON.parse(committed())), JSON.stringify(ajv.errors)).toBe(true);
  return ajv.compile(JSON.parse(committed()));
}

const WORLDS = ["kitchen", "tabletop", "course", "workbench", "blocks"];
/** A world's manifests as their files say them (before zod's defaults and transforms). */
const asWritten = (world: string) => {
  const dir = join(dirname(MANIFEST_JSON_SCHEMA), world);
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => JSON.parse(readFileSync(join(dir, name), "utf8")) as unknown);
};

describe("the manifest file's JSON Schema", () => {
  it("is committed as generated from the zod schema (npm run manifest:schema writes it)", () => {
    expect(committed(), "robots/manifests/manifest.schema.json is stale: npm run manifest:schema").toBe(
      manifestJsonSchemaText(),
    );
  });

  it("is valid draft-07 and takes every bundled manifest as a file, with its $schema", () => {
    const validate = validator();
    expect(JSON.parse(committed()).$schema).toBe("http://json-schema.org/draft-07/schema#");
    for (const world of WORLDS) {
      const file = { $schema: "./manifest.schema.json", robots: asWritten(world) };
      expect(file.robots.length).toBeGreaterThan(0);
      expect(validate(file), `${world}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(ManifestFile.safeParse(file).success).toBe(true);
    }
  });

  it("refuses what zod refuses: an argument type outside the subset, a missing skill field; takes ROS 1's image type", () => {
    const validate = validator();
    const [mobile] = bundledManifests("kitchen");
    const withArgumentType = structuredClone(mobile) as unknown as {
      skills: { parameters: { properties: Record<string, unknown> }; action?: string }[];
      cameras: { imageType?: string }[];
    };
    withArgumentType.skills[0].parameters.properties.extra = { type: "bool" };
    expect(validate({ robots: [withArgumentType] })).toBe(false);
    expect(JSON.stringify(validate.errors)).toMatch(/properties\/extra\/type/);
    expect(ManifestFile.safeParse({ robots: [withArgumentType] }).success).toBe(false);

    const withoutAction = structuredClone(mobile) as unknown as typeof withArgumentType;
    delete withoutAction.skills[0].action;
    expect(validate({ robots: [withoutAction] })).toBe(false);
    expect(ManifestFile.safeParse({ robots: [withoutAction] }).success).toBe(false);

    const ros1Camera = structuredClone(mobile) as unknown as typeof withArgumentType;
    ros1Camera.cameras[0].imageType = "sensor_msgs/Image";
    expect(validate({ robots: [ros1Camera] }), JSON.stringify(validate.errors)).toBe(true);
    expect(ManifestFile.parse({ robots: [ros1Camera] }).robots[0].cameras[0].imageType).toBe("sensor_msgs/msg/Image");
  });

  it("is what connect's drafts point at, relative to the file they are written to", () => {
    expect(schemaReference("robots/manifests/draft.json")).toBe("./manifest.schema.json");
    expect(schemaReference("/nowhere/draft.json")).toMatch(/^(\.\.\/)+.*robots\/manifests\/manifest\.schema\.json$/);
    expect(schemaReference(undefined)).toMatch(/^file:\/\/.*\/robots\/manifests\/manifest\.schema\.json$/);
  });
});
