/**
 * How the symbolic reasoner reads an instruction: goal literals and told locations from plain sentences that use the
 * world's own names ("Put the orange, which is on the table, into the sink."). A VLM reads the same text freely.
 * A part it cannot read is reported, word for word, rather than dropped: acting on the rest would claim a task done
 * that was never understood.
 */
export interface ReadInstruction {
  goals: string[];
  /** Locations the instruction states ("the tea, which is in the refrigerator"). */
  told: { object: string; place: string }[];
  /** Parts of the instruction this reader does not understand, as written ("dispose of it in the trash_can"). */
  notUnderstood: string[];
}

const MANIPULATE = /\b(put|throw|bring|place|take|move|carry|roast|drop)\b/i;
const FIND = /\b(find|locate|search|look for)\b/i;
/** Verbs a part of an instruction may start with and still be understood: the two goal kinds, and asking for a report. */
const UNDERSTOOD_VERB = /^(?:put|throw|bring|place|take|move|carry|roast|drop|find|locate|search|look|report|tell|say)\b/i;
/** A constraint on how to act ("Do not move anything."): understood, and no goal of its own. */
const CONSTRAINT = /^(?:do not|don't|never)\b/i;
/** Words that lead into a part without being its verb. */
const LEAD = /^(?:(?:and|then|also|finally|first|please|now)\s+|,\s*)+/i;
/** Words after "and" that continue a list of things rather than start a new part. */
const NOT_A_VERB = new Set(["the", "a", "an", "it", "them", "its", "their", "each", "every", "all", "both", "then"]);

export function readInstruction(text: string, labels: string[], places: string[]): ReadInstruction {
  const goals: string[] = [];
  const told: { object: string; place: string }[] = [];
  const notUnderstood: string[] = [];
  const names = new Set([...labels, ...places].map((n) => n.toLowerCase()));
  const clauses = text
    .split(/(?<=[.;:!?])\s+|,\s+and\s+(?=(?:then\s+)?(?:put|throw|bring|place|take|move|carry|find|locate)\b)|\s+then\s+/i)
    // "… and <verb> …" starts another part ("find the tea and dispose of it"); "and the apple" continues a list.
    .flatMap((c) => c.split(/\s+and\s+(?=([a-z']+)\b)/i).reduce<string[]>((parts, piece, i, all) => {
      // split() interleaves the captured next word: even indices are text, odd ones the word after "and".
      if (i % 2 === 1) return parts;
      const word = (all[i - 1] ?? "").toLowerCase();
      if (i === 0 || NOT_A_VERB.has(word) || names.has(word)) {
        if (i === 0) parts.push(piece);
        else parts[parts.length - 1] += ` and ${piece}`;
      } else parts.push(piece);
      return parts;
    }, []))
    .map((c) => c.trim())
    .filter(Boolean);
  let lastObjects: string[] = [];
  const mentions = (c: string, names: string[]) =>
    names
      .map((n) => ({ n, i: c.search(new RegExp(`\\b${n}\\b`, "i")) }))
      .filter((m) => m.i >= 0)
      .sort((a, b) => a.i - b.i);
  for (const clause of clauses) {
    const objs = mentions(clause, labels).map((m) => m.n);
    // "X, which is/are in/on the P" states where X is.
    for (const o of objs) {
      const m = new RegExp(`\\b${o}\\b,?\\s+(?:which|that)\\s+(?:is|are)\\s+(?:in|on|inside)\\s+(?:the\\s+)?(${places.join("|")})\\b`, "i").exec(clause);
      if (m) told.push({ object: o, place: m[1].toLowerCase() });
    }
    const subjects = objs.length ? objs : /\b(it|them)\b/i.test(clause) ? lastObjects : [];
    const lead = clause.replace(LEAD, "");
    const part = lead.replace(/[.;:!?]+$/, "");
    if (CONSTRAINT.test(lead)) {
      // A constraint: nothing to achieve.
    } else if (!UNDERSTOOD_VERB.test(lead)) {
      notUnderstood.push(part);
    } else if (MANIPULATE.test(clause)) {
      // The destination is the last place named after a preposition, outside "which is in …" asides.
      const stripped = clause.replace(/,?\s+(?:which|that)\s+(?:is|are)\s+[^,]*,?/gi, " ");
      const dests = [...stripped.matchAll(new RegExp(`\\b(?:into|in|on|onto|to)\\s+(?:the\\s+)?(${places.join("|")})\\b`, "gi"))];
      const dest = dests.at(-1)?.[1]?.toLowerCase();
      if (dest && subjects.length) for (const o of subjects) goals.push(`in(${o}, ${dest})`);
      // A placement that names no known thing or no known destination cannot be done as asked.
      else notUnderstood.push(part);
    } else if (FIND.test(clause)) {
      if (subjects.length) for (const o of subjects) goals.push(`found(${o})`);
      else notUnderstood.push(part);
    }
    if (objs.length) lastObjects = objs;
  }
  // A "find X and put it …" sentence asks for the placement, which implies having found it.
  const placed = new Set(goals.filter((g) => g.startsWith("in(")).map((g) => g.slice(3, g.indexOf(","))));
  return { goals: [...new Set(goals.filter((g) => !(g.startsWith("found(") && placed.has(g.slice(6, -1)))))], told, notUnderstood };
}

/** Words of a name, singular and lower-case: "Tea Bottles" → ["bottle", "tea"]. */
export function nameTokens(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w && !["of", "the", "a", "an"].includes(w))
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w))
    .sort();
}

/** The known name `name` most plausibly means, or undefined when none is close enough. */
export function closestName(name: string, known: string[]): string | undefined {
  if (known.includes(name)) return name;
  const t = new Set(nameTokens(name));
  let best: string | undefined;
  let bestScore = 0;
  for (const k of known) {
    const u = nameTokens(k);
    const shared = u.filter((w) => t.has(w)).length;
    const score = shared / new Set([...t, ...u]).size;
    if (score > bestScore) {
      bestScore = score;
      best = k;
    }
  }
  return bestScore >= 0.5 ? best : undefined;
}

/** A wording a perceiver might use instead of the vocabulary's name. */
export function alias(name: string): string {
  const words = name.split("_").filter((w) => w !== "of");
  if (words.length > 1) return [...words].reverse().join("_");
  return `${name}s`;
}
