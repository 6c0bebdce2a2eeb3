/**
 * What model calls cost, per role: requests sent (by outcome: ok, invalid, timeout, http_429, …), tokens in and out,
 * images; how usages add up; and the model scope a node's calls share — the run's deadline for retrying, its abort
 * signal, and the ledger every request sent is counted in, so a node that ends early still accounts for its calls.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Role } from "./roles";

export interface RoleUsage {
  /** Requests sent, whatever came of them. */
  calls: number;
  inputTokens: number;
  outputTokens: number;
  images: number;
  /** Requests by outcome: ok, invalid (did not fit the schema), timeout, http_429, http_503, connection, … */
  outcomes?: Record<string, number>;
}
export type Usage = Partial<Record<Role, RoleUsage>>;

function addOutcomes(
  left?: Record<string, number>,
  right?: Record<string, number>,
): Record<string, number> | undefined {
  if (!left && !right) return undefined;
  const out = { ...left };
  for (const [k, n] of Object.entries(right ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

export const addRole = (sum: RoleUsage, added: RoleUsage): RoleUsage => {
  const outcomes = addOutcomes(sum.outcomes, added.outcomes);
  return {
    calls: sum.calls + added.calls,
    inputTokens: sum.inputTokens + added.inputTokens,
    outputTokens: sum.outputTokens + added.outputTokens,
    images: sum.images + added.images,
    ...(outcomes ? { outcomes } : {}),
  };
};

export function addUsage(left: Usage, right: Usage): Usage {
  const out: Usage = { ...left };
  for (const [role, u] of Object.entries(right) as [Role, RoleUsage][])
    out[role] = addRole(out[role] ?? { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 }, u);
  return out;
}

export function totalUsage(usage: Usage): RoleUsage {
  return Object.values(usage).reduce(addRole, { calls: 0, inputTokens: 0, outputTokens: 0, images: 0 });
}

/**
 * What one node's model calls share: the time by which retrying must stop (the run's wall budget), the run's abort
 * signal (an emergency stop ends a request in flight), and a ledger of every request sent — so a node that ends
 * early still accounts for the calls it made.
 */
export interface ModelScope {
  deadline?: number;
  signal?: AbortSignal;
  usage: Usage;
}
/** The scope of the node whose calls are running (askStructured counts into its ledger). */
export const scopes = new AsyncLocalStorage<ModelScope>();

export function withModelScope<T>(scope: ModelScope, fn: () => Promise<T>): Promise<T> {
  return scopes.run(scope, fn);
}
