/**
 * The skills' policies (a Gaussian over the controller's parameters per skill) kept as a JSON artifact: state holds its
 * reference, so checkpoints stay small while every version of the policies stays inspectable.
 */
import type { ArtifactStore } from "../../../memory/artifacts";
import type { SkillPolicy } from "../../../models/learning/policy";

export type Policies = Record<string, SkillPolicy>;

export const storePolicies = (artifacts: ArtifactStore, policies: Policies) =>
  artifacts.put(Buffer.from(JSON.stringify(policies)), "json");

const cache = new Map<string, Policies>();
export function loadPolicies(artifacts: ArtifactStore, ref: string): Policies {
  let policies = cache.get(ref);
  if (!policies) {
    policies = JSON.parse(artifacts.get(ref).toString("utf8")) as Policies;
    cache.set(ref, policies);
  }
  return policies;
}
