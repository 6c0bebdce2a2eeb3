/**
 * A skill's policy: a diagonal Gaussian over the shared controller parameters (PARAMS of robots/msgs/blocks.ts). Every
 * skill starts from the same broad prior; the learner moves its mean and narrows its spread from relabelled episodes.
 * The library is these policies plus each skill's learning curve, kept as JSON.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PARAMS, PARAM_DIM, PARAM_MAX, PARAM_MIN, clampParams } from "../../robots/msgs/blocks";
import { skillInfo } from "../../robots/manifests/blocks/skills";
import type { Rng } from "../../robots/random";

export interface SkillPolicy {
  skill: string;
  mean: number[];
  std: number[];
  /** Learner iterations that updated it. */
  iterations: number;
  /** Relabelled samples the last update used. */
  samples: number;
}

const RANGE = PARAMS.map((p) => p.max - p.min);
/** Smallest spread the learner keeps per dimension (a fraction of its range), so exploration never stops. */
export const MIN_STD = RANGE.map((r) => 0.03 * r);

/** Gates (close, release) start just below their threshold: the uninformed controller's mean moves but grasps nothing. */
const GATES = new Set(["close", "release"]);

/** The uninformed starting point of every skill: centred, spread over its range (a quarter of it as one sigma). */
export function priorPolicy(skill: string): SkillPolicy {
  skillInfo(skill);
  return {
    skill,
    mean: PARAMS.map((p) => (GATES.has(p.name) ? 0.4 : (p.min + p.max) / 2)),
    std: RANGE.map((r) => r / 4),
    iterations: 0,
    samples: 0,
  };
}

export function samplePolicy(policy: SkillPolicy, rng: Rng): number[] {
  return clampParams(policy.mean.map((m, i) => m + policy.std[i] * rng.normal())).map((value, i) =>
    Math.min(PARAM_MAX[i], Math.max(PARAM_MIN[i], value)),
  );
}

export const meanParams = (p: SkillPolicy): number[] => clampParams(p.mean);

export interface SkillLibrary {
  policies: Record<string, SkillPolicy>;
  /** Evaluation score (mean reward per step, in [0, 1]) after each learner iteration, per skill. */
  curves: Record<string, number[]>;
  /** How the library was made (script, seeds, episodes). */
  meta?: Record<string, unknown>;
}

export function checkPolicy(policy: SkillPolicy): SkillPolicy {
  skillInfo(policy.skill);
  if (policy.mean.length !== PARAM_DIM || policy.std.length !== PARAM_DIM)
    throw new Error(
      `policy of ${policy.skill} has ${policy.mean.length} means and ${policy.std.length} spreads; expected ${PARAM_DIM}`,
    );
  return policy;
}

const here = dirname(fileURLToPath(import.meta.url));
export const BASE_SKILLS_PATH = join(here, "..", "..", "data", "blocks", "base-skills.json");

export function loadLibrary(path: string): SkillLibrary {
  if (!existsSync(path))
    throw new Error(
      `no skill library at ${path}${path === BASE_SKILLS_PATH ? " (make it with npm run make:base-skills)" : ""}`,
    );
  const lib = JSON.parse(readFileSync(path, "utf8")) as SkillLibrary;
  for (const p of Object.values(lib.policies ?? {})) checkPolicy(p);
  return { policies: lib.policies ?? {}, curves: lib.curves ?? {}, meta: lib.meta };
}

/** The pretrained base skills (open/close gripper, grasp anything, reach X) that `npm run make:base-skills` learned. */
export const loadBaseSkills = (path = BASE_SKILLS_PATH): SkillLibrary => loadLibrary(path);

export function saveLibrary(path: string, lib: SkillLibrary): void {
  mkdirSync(dirname(path), { recursive: true });
  const round = (v: number[]) => v.map((x) => Math.round(x * 1e5) / 1e5);
  const policies = Object.fromEntries(
    Object.entries(lib.policies).map(([k, p]) => [k, { ...p, mean: round(p.mean), std: round(p.std) }]),
  );
  const curves = Object.fromEntries(
    Object.entries(lib.curves).map(([k, c]) => [k, c.map((x) => Math.round(x * 1e4) / 1e4)]),
  );
  writeFileSync(path, JSON.stringify({ ...lib, policies, curves }, null, 1) + "\n");
}
