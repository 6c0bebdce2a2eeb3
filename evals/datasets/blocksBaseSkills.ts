/**
 * `npm run make:base-skills`: the blocks world's pretrained base skills (open/close gripper, grasp anything, reach X),
 * as the paper starts its curriculum from pretrained skills — learned here by the same learner the curriculum uses,
 * from the same uninformed prior, on episodes collected in N simulator processes. Writes the policies and their
 * learning curves to data/blocks/base-skills.json (or --out PATH).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";
import { BridgeClient } from "../../robots/bridge/client";
import { BASE_SKILLS } from "../../robots/manifests/blocks/skills";
import { startSimProcess } from "../../robots/sim/process";
import { BASE_SKILLS_PATH, saveLibrary, type SkillLibrary } from "../../models/learning/policy";
import { Rng } from "../../robots/random";
import { trainSkills } from "../../models/learning/train";

export async function makeBaseSkills(opts: { out?: string; instances?: number; iterations?: number; episodes?: number; seed?: number; log?: (s: string) => void } = {}): Promise<SkillLibrary> {
  const instances = opts.instances ?? 2, iterations = opts.iterations ?? 5, episodes = opts.episodes ?? 8, seed = opts.seed ?? 0;
  const dir = mkdtempSync(join(tmpdir(), "robograph-base-skills-"));
  const sims = await Promise.all(Array.from({ length: instances }, (_, i) => startSimProcess("blocks", ["--seed", String(seed * 1000 + i * 500), "--episodes", dir, "--instance", `base${i}`])));
  const t0 = performance.now();
  try {
    const clients = await Promise.all(sims.map((s) => BridgeClient.connect(s.url)));
    const { library, data } = await trainSkills(clients, { policies: {}, curves: {} }, {
      skills: [...BASE_SKILLS],
      iterations,
      episodesPerPlan: episodes,
      rng: new Rng(seed),
      onIteration: (i, _stats, scores) => opts.log?.(`iteration ${i}: ${Object.entries(scores).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")}`),
    });
    await Promise.all(clients.map((c) => c.close()));
    const lib: SkillLibrary = {
      ...library,
      meta: { made_by: "npm run make:base-skills", seed, instances, iterations, episodes_per_skill_per_iteration: episodes, episodes: data.length, seconds: Math.round((performance.now() - t0) / 100) / 10 },
    };
    saveLibrary(opts.out ?? BASE_SKILLS_PATH, lib);
    return lib;
  } finally {
    await Promise.all(sims.map((s) => s.stop()));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({ options: { out: { type: "string" }, instances: { type: "string" }, iterations: { type: "string" }, episodes: { type: "string" }, seed: { type: "string" } } });
  const numberOf = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  makeBaseSkills({ out: values.out, instances: numberOf(values.instances), iterations: numberOf(values.iterations), episodes: numberOf(values.episodes), seed: numberOf(values.seed), log: (s) => console.log(s) })
    .then((lib) => console.log(`wrote ${values.out ?? BASE_SKILLS_PATH}: ${Object.keys(lib.policies).join(", ")} (${JSON.stringify(lib.meta)})`))
    .catch((err) => {
      console.error(`make:base-skills: ${(err as Error).message}`);
      process.exit(1);
    });
}
