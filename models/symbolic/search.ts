/**
 * Breadth-first search over the preconditions and effects the robot manifests declare (a small STRIPS planner).
 * States are sets of ground facts; actions are skills grounded over the names in the world.
 */
import { parseLiteral, type Literal, type RobotManifest } from "../../robots/manifests/schema";

export interface GroundAction {
  robot: string;
  skill: string;
  args: Record<string, string>;
}

export interface Domain {
  robots: RobotManifest[];
  /** Facts that never change (reach, navigation, typing). */
  staticFacts: string[];
  capacity: Record<string, number>;
  /** Names an object parameter may take (keep small: the objects the task is about). */
  objects: string[];
}

const fact = (pred: string, args: string[]) => `${pred}(${args.join(", ")})`;

function parseFact(text: string): { pred: string; args: string[] } {
  const literal = parseLiteral(text);
  return { pred: literal.pred, args: literal.args };
}

/** All bindings of the literal's free variables (?x) that make it hold in `facts`, extending `bind`. */
function* match(
  literal: Literal,
  bind: Record<string, string>,
  facts: Set<string>,
  index: Map<string, string[][]>,
): Generator<Record<string, string>> {
  const resolved = literal.args.map((a) => (a.startsWith("?") ? bind[a] : (bind[a] ?? a)));
  if (resolved.every((a) => a !== undefined)) {
    if (facts.has(fact(literal.pred, resolved as string[]))) yield bind;
    return;
  }
  for (const args of index.get(literal.pred) ?? []) {
    if (args.length !== resolved.length) continue;
    const next = { ...bind };
    let ok = true;
    for (let i = 0; i < args.length && ok; i++) {
      if (resolved[i] === undefined) next[literal.args[i]] = args[i];
      else ok = resolved[i] === args[i];
    }
    if (ok) yield next;
  }
}

function indexFacts(facts: Set<string>): Map<string, string[][]> {
  const idx = new Map<string, string[][]>();
  for (const f of facts) {
    const { pred, args } = parseFact(f);
    if (!idx.has(pred)) idx.set(pred, []);
    idx.get(pred)!.push(args);
  }
  return idx;
}

/** Whether every literal holds; a negated literal holds when no binding makes its positive form hold. */
function satisfied(
  lits: Literal[],
  bind: Record<string, string>,
  facts: Set<string>,
  index: Map<string, string[][]>,
  dom: Domain,
): Record<string, string> | undefined {
  const go = (i: number, binding: Record<string, string>): Record<string, string> | undefined => {
    if (i === lits.length) return binding;
    const literal = lits[i];
    if (literal.pred === "full") {
      const place = binding[literal.args[0]] ?? literal.args[0];
      const held = [...facts].filter((f) => f.startsWith("in(") && f.endsWith(`, ${place})`)).length;
      const isFull = held >= (dom.capacity[place] ?? Infinity);
      return isFull !== literal.negated ? go(i + 1, binding) : undefined;
    }
    if (literal.negated) {
      const positive = { ...literal, negated: false, args: literal.args.map((a) => (a === "_" ? `?_${i}` : a)) };
      for (const _ of match(positive, binding, facts, index)) return undefined;
      return go(i + 1, binding);
    }
    for (const nb of match(literal, binding, facts, index)) {
      const found = go(i + 1, nb);
      if (found) return found;
    }
    return undefined;
  };
  return go(0, bind);
}

function apply(effects: Literal[], bind: Record<string, string>, facts: Set<string>): Set<string> {
  const next = new Set(facts);
  const ground = (l: Literal) => l.args.map((a) => (a === "_" ? "_" : (bind[a] ?? a)));
  for (const l of effects.filter((e) => e.negated)) {
    const args = ground(l);
    if (args.includes("_")) {
      for (const f of next) {
        const parsed = parseFact(f);
        if (
          parsed.pred === l.pred &&
          parsed.args.length === args.length &&
          parsed.args.every((a, i) => args[i] === "_" || args[i] === a)
        )
          next.delete(f);
      }
    } else next.delete(fact(l.pred, args));
  }
  for (const l of effects.filter((e) => !e.negated)) next.add(fact(l.pred, ground(l)));
  return next;
}

/** Every grounding of every skill, with the robot's own name bound to `self`. */
export function groundActions(
  dom: Domain,
): { action: GroundAction; pre: Literal[]; eff: Literal[]; bind: Record<string, string> }[] {
  const out: { action: GroundAction; pre: Literal[]; eff: Literal[]; bind: Record<string, string> }[] = [];
  for (const r of dom.robots) {
    for (const s of r.skills) {
      const params = Object.entries(s.parameters.properties);
      const domains = params.map(([name, field]) => {
        const values = (field.enum ?? []).map(String);
        // Objects are the planner's own names for them (a perceiver's wording may differ from the manifest's;
        // the verifier maps them back before anything is sent).
        return name === "object" ? dom.objects : values;
      });
      const combos: string[][] = [[]];
      for (const d of domains) combos.splice(0, combos.length, ...combos.flatMap((c) => d.map((v) => [...c, v])));
      const pre = s.preconditions.map(parseLiteral);
      const eff = s.effects.map(parseLiteral);
      for (const c of combos) {
        const args = Object.fromEntries(params.map(([n], i) => [n, c[i]]));
        out.push({ action: { robot: r.id, skill: s.name, args }, pre, eff, bind: { ...args, self: r.id } });
      }
    }
  }
  return out;
}

export interface SearchResult {
  plan: GroundAction[];
  expanded: number;
}

/** Shortest action sequence from `facts` to a state where all `goal` literals hold, or undefined. */
export function search(dom: Domain, facts: string[], goal: string[], maxExpansions = 50_000): SearchResult | undefined {
  const actions = groundActions(dom);
  const goalLits = goal.map(parseLiteral);
  const statics = new Set(dom.staticFacts);
  const start = new Set(facts);
  const key = (s: Set<string>) => [...s].sort().join(";");
  const seen = new Set([key(start)]);
  let frontier: { facts: Set<string>; plan: GroundAction[] }[] = [{ facts: start, plan: [] }];
  let expanded = 0;
  while (frontier.length) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      const all = new Set([...node.facts, ...statics]);
      const index = indexFacts(all);
      if (satisfied(goalLits, {}, all, index, dom)) return { plan: node.plan, expanded };
      if (++expanded > maxExpansions) return undefined;
      for (const a of actions) {
        const binding = satisfied(a.pre, a.bind, all, index, dom);
        if (!binding) continue;
        const succ = apply(a.eff, binding, node.facts);
        const k = key(succ);
        if (seen.has(k)) continue;
        seen.add(k);
        next.push({ facts: succ, plan: [...node.plan, a.action] });
      }
    }
    frontier = next;
  }
  return undefined;
}

/** The facts after `action`, when its preconditions hold in `facts`; undefined when they do not. */
export function afterAction(dom: Domain, action: GroundAction, facts: string[]): string[] | undefined {
  const skill = dom.robots.find((m) => m.id === action.robot)?.skills.find((k) => k.name === action.skill);
  if (!skill) return undefined;
  const all = new Set([...facts, ...dom.staticFacts]);
  const binding = satisfied(
    skill.preconditions.map(parseLiteral),
    { ...action.args, self: action.robot },
    all,
    indexFacts(all),
    dom,
  );
  return binding ? [...apply(skill.effects.map(parseLiteral), binding, new Set(facts))] : undefined;
}

/** Whether a ground action's preconditions hold in `facts` (for the critic). Returns the first literal that fails. */
export function firstUnmet(dom: Domain, action: GroundAction, facts: string[]): string | undefined {
  const robot = dom.robots.find((m) => m.id === action.robot);
  const skill = robot?.skills.find((k) => k.name === action.skill);
  if (!skill) return `${action.robot} has no skill ${action.skill}`;
  const all = new Set([...facts, ...dom.staticFacts]);
  const index = indexFacts(all);
  const bind = { ...action.args, self: action.robot };
  const pre = skill.preconditions.map(parseLiteral);
  // Check literal by literal so the answer names what is missing.
  for (let i = 1; i <= pre.length; i++) {
    if (!satisfied(pre.slice(0, i), bind, all, index, dom)) {
      const literal = pre[i - 1];
      return `${literal.negated ? "not " : ""}${literal.pred}(${literal.args.map((a) => bind[a as keyof typeof bind] ?? a).join(", ")})`;
    }
  }
  return undefined;
}
