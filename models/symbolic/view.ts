/**
 * The world and robots of a context block as the nodes write them for a model (nodes/modelContext.ts), read back into
 * the world description and manifests the reasoner works with: wordings lists become display names and aliases, and
 * an argument that names one of the world's lists gets that list's values. The reasoner's seeded draws are keyed on
 * what the context asks (models/symbolic/meaning.ts), so a compact prompt draws what the full one did.
 */
import type { Naming } from "../../robots/manifests/schema";
import { WORLD_LISTS } from "../context";

type Names = Record<string, Naming | string[]>;

const namings = (names: Names) =>
  Object.fromEntries(
    Object.entries(names).map(([k, n]) => [k, Array.isArray(n) ? { display: n[0], aliases: n.slice(1) } : n]),
  );

export function readModelView<T extends { world?: any; robots?: any }>(ctx: T): T {
  const world =
    ctx.world && typeof ctx.world === "object"
      ? { ...ctx.world, ...(ctx.world.names ? { names: namings(ctx.world.names) } : {}) }
      : ctx.world;
  const robots =
    Array.isArray(ctx.robots) && ctx.robots.some((r: unknown) => typeof r === "object")
      ? ctx.robots.map((r: any) => ({
          ...r,
          ...(r.names ? { names: namings(r.names) } : {}),
          skills: r.skills?.map((s: any) => ({
            ...s,
            parameters: s.parameters && {
              ...s.parameters,
              properties: Object.fromEntries(
                Object.entries(s.parameters.properties ?? {}).map(([k, p]: [string, any]) => {
                  if (typeof p?.enum !== "string") return [k, p];
                  const list = WORLD_LISTS[p.enum];
                  if (!list || !world)
                    throw new Error(
                      `argument ${k} of ${r.id}.${s.name} names the list ${p.enum}, which the context does not give`,
                    );
                  return [k, { ...p, enum: list(world) }];
                }),
              ),
            },
          })),
        }))
      : ctx.robots;
  return { ...ctx, ...(world ? { world } : {}), ...(robots ? { robots } : {}) };
}
