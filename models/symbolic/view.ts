/**
 * The world and robots of a context block as the nodes write them for a model (nodes/modelContext.ts), read back into
 * the world description and manifests the reasoner works with: wordings lists become display names and aliases, and
 * an argument that names one of the world's lists gets that list's values. The reasoner's seeded draws are keyed on
 * what the context asks (models/symbolic/meaning.ts), so a compact prompt draws what the full one did.
 */
import type { Naming, WorldDescription } from "../../robots/manifests/schema";
import { WORLD_LISTS } from "../context";

type Names = Record<string, Naming | string[]>;

const namings = (names: Names) =>
  Object.fromEntries(
    Object.entries(names).map(([k, n]) => [k, Array.isArray(n) ? { display: n[0], aliases: n.slice(1) } : n]),
  );

/** A context's fields as the view reads them: loosely, since a model's context is whatever JSON the node wrote. */
type Fields = Record<string, unknown>;
type ParameterView = (Fields & { enum?: unknown }) | null | undefined;
type SkillView = Fields & { name?: string; parameters?: Fields & { properties?: Record<string, ParameterView> } };
type RobotView = Fields & { id?: string; names?: Names; skills?: SkillView[] };
type WorldView = Fields & { names?: Names };

export function readModelView<T extends object>(ctx: T): T {
  const view = ctx as { world?: WorldView; robots?: unknown };
  const world =
    view.world && typeof view.world === "object"
      ? { ...view.world, ...(view.world.names ? { names: namings(view.world.names) } : {}) }
      : view.world;
  const robots =
    Array.isArray(view.robots) && view.robots.some((r: unknown) => typeof r === "object")
      ? (view.robots as RobotView[]).map((robot) => ({
          ...robot,
          ...(robot.names ? { names: namings(robot.names) } : {}),
          skills: robot.skills?.map((skill) => ({
            ...skill,
            parameters: skill.parameters && {
              ...skill.parameters,
              properties: Object.fromEntries(
                Object.entries(skill.parameters.properties ?? {}).map(([argument, property]) => {
                  if (typeof property?.enum !== "string") return [argument, property];
                  const list = WORLD_LISTS[property.enum];
                  if (!list || !world)
                    throw new Error(
                      `argument ${argument} of ${robot.id}.${skill.name} names the list ${property.enum}, which the context does not give`,
                    );
                  return [argument, { ...property, enum: list(world as unknown as WorldDescription) }];
                }),
              ),
            },
          })),
        }))
      : view.robots;
  return { ...ctx, ...(world ? { world } : {}), ...(robots ? { robots } : {}) };
}
