/**
 * The world and the robots as a model is shown them. The same in every request of a run, so they go first in a
 * context block, where a provider's prompt cache can reuse them, and written compactly, because every request pays
 * for them again:
 * - robots: what each robot is, reaches and can do — skills with their arguments, preconditions and effects — without
 *   what only the transport needs (action names and types, goal templates, camera topics, time-outs, approval flags,
 *   JSON-schema boilerplate); an argument whose values are a list the world already gives (its labels, its places, the places that
 *   open, its navigation points) says so in words ("one of world.labels") instead of repeating it;
 * - names: each name's wordings as one list, the display name first ("drawer_top": ["top drawer", "upper drawer"]).
 * The symbolic reasoner reads the same view back (models/symbolic/view.ts); nothing it reads is lost.
 */
import type { Naming, RobotManifest, WorldDescription } from "../robots/manifests/schema";
import { WORLD_LISTS } from "../models/context";

/** A name's wordings, display name first. */
type Wordings = string[];

/** A naming with both a display name and aliases becomes one list; a partial one stays as it is (it reads back alike). */
const wordings = (names: Record<string, Naming> | undefined) =>
  names &&
  Object.fromEntries(
    Object.entries(names).map(([k, naming]) => [
      k,
      naming.display !== undefined && naming.aliases !== undefined
        ? ([naming.display, ...naming.aliases] as Wordings)
        : naming,
    ]),
  );

const worldViews = new WeakMap<WorldDescription, unknown>();

export function worldForModel(world: WorldDescription): WorldDescription {
  let view = worldViews.get(world);
  if (!view) worldViews.set(world, (view = { ...world, ...(world.names ? { names: wordings(world.names) } : {}) }));
  return view as WorldDescription;
}

const robotViews = new WeakMap<RobotManifest[], Map<WorldDescription | undefined, unknown[]>>();

const sameList = (a: unknown[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** With the world at hand, arguments name the world's lists rather than repeating them. */
export function robotsForModel(robots: RobotManifest[], world?: WorldDescription): RobotManifest[] {
  if (!robotViews.has(robots)) robotViews.set(robots, new Map());
  const byWorld = robotViews.get(robots)!;
  let views = byWorld.get(world);
  if (!views) {
    const listOf = (values: unknown[]) =>
      world ? Object.keys(WORLD_LISTS).find((k) => sameList(values, WORLD_LISTS[k](world))) : undefined;
    views = robots.map(({ cameras: _cameras, skills, ...robot }) => ({
      ...robot,
      ...(robot.names ? { names: wordings(robot.names) } : {}),
      // A goal template (the message's schema, measured poses) is how the robot takes a goal, not what the model says.
      skills: skills.map(
        ({
          action: _action,
          actionType: _type,
          timeoutSec: _timeout,
          requiresApproval: _approval,
          goal: _goal,
          parameters,
          ...skill
        }) => ({
          ...skill,
          parameters: {
            properties: Object.fromEntries(
              Object.entries(parameters.properties).map(([k, field]) => {
                if (!field.enum) return [k, field];
                const { type: _t, ...rest } = field;
                const list = listOf(field.enum);
                return [k, list ? { ...rest, enum: list } : rest];
              }),
            ),
            required: parameters.required,
          },
        }),
      ),
    }));
    byWorld.set(world, views);
  }
  // The symbolic reasoner reads the fields it needs from this view (models/symbolic/view.ts); a model reads it as text.
  return views as RobotManifest[];
}
