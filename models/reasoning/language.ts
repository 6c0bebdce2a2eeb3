/**
 * How the symbolic reasoner reads an instruction: goal literals and told locations from plain sentences ("Put the
 * orange, which is on the table, into the sink."; "Locate the tea bottle and dispose of it in the garbage."). Phrases
 * reach the world's names through the names' display names and aliases (from the world description and the robots'
 * manifests), then through word overlap and small misspellings; common verbs reach the two goal kinds (dispose of,
 * throw away, discard, bin → put into the trash; locate, look for, where is → find). A VLM reads the same text freely.
 * A part it cannot read is reported, word for word, with the words it could not place and the closest names, rather
 * than dropped: acting on the rest would claim a task done that was never understood.
 *
 * A sentence these rules leave partly unread is read again as the NLP library compromise parses it (./phrasing.ts:
 * passives, polite frames, "by putting it in …", purposes, "X and then Y", "it" for the thing it stands for) — chosen
 * because it is pure JavaScript with its lexicon built in: no model package to fetch, and it loads under ESM, tsx and
 * vitest. The rules read first, so whatever they read whole reads exactly as before.
 */
import type { Naming } from "../../robots/manifests/schema";
import { describesOnly, restate, type Knows } from "./phrasing";

export interface ReadInstruction {
  goals: string[];
  /** Locations the instruction states ("the tea, which is in the refrigerator"; "the milk from the fridge"). */
  told: { object: string; place: string }[];
  /** Parts of the instruction this reader does not understand, as written ("wash the apple"). */
  notUnderstood: string[];
  /** Words of those parts that name nothing it knows, each with the closest names ("wash"; "flux capacitor"). */
  unplaced: Unplaced[];
}

export interface Unplaced {
  words: string;
  /** Known names closest to the words (ties of an ambiguous phrase, or the nearest by overlap and spelling). */
  closest: string[];
  /** Where every word has its place and still something is missing: what ("no place to put the milk in"). */
  why?: string;
}

/** A name of the world's vocabulary with the words people use for it. */
export interface Word {
  name: string;
  kind: "object" | "place" | "navigation_point" | "part";
  display: string;
  aliases: string[];
}

/** What the reader knows: the world's names with their wordings, and the robots' skills with theirs. */
export interface Lexicon {
  words: Word[];
  skills: { name: string; display: string; aliases: string[] }[];
}

/** The parts of a world description and of robot manifests a lexicon is made from. */
export interface NamedWorld {
  labels: string[];
  places: { name: string }[];
  navigationPoints?: string[];
  joints?: { name: string; object: string; handle: string }[];
  targets?: { name: string }[];
  names?: Record<string, Naming>;
}
export interface NamedRobot {
  skills: { name: string; display?: string; aliases?: string[] }[];
  names?: Record<string, Naming>;
}

const plain = (name: string) => name.replace(/_/g, " ");

/** Lexicons already made, by what they were made from: every node of every step reads the instruction again. */
const made = new Map<string, Lexicon>();

/** The lexicon of a world (and its robots): every name, its display name and aliases from wherever they are given. */
export function lexicon(world: NamedWorld, robots: NamedRobot[] = []): Lexicon {
  const key = JSON.stringify([
    world.labels,
    world.places.map((p) => p.name),
    world.navigationPoints,
    world.joints,
    world.targets,
    world.names,
    robots.map((r) => [r.skills.map((s) => [s.name, s.display, s.aliases]), r.names]),
  ]);
  const known = made.get(key);
  if (known) return known;
  const lex = makeLexicon(world, robots);
  if (made.size >= 32) made.delete(made.keys().next().value!);
  made.set(key, lex);
  return lex;
}

function makeLexicon(world: NamedWorld, robots: NamedRobot[]): Lexicon {
  const placeNames = new Set(world.places.map((p) => p.name));
  const kinds = new Map<string, Word["kind"]>();
  for (const l of world.labels) kinds.set(l, placeNames.has(l) ? "place" : "object");
  for (const p of placeNames) kinds.set(p, "place");
  for (const n of world.navigationPoints ?? []) kinds.set(n, "navigation_point");
  for (const j of world.joints ?? []) for (const n of [j.name, j.handle]) if (!kinds.has(n)) kinds.set(n, "part");
  for (const t of world.targets ?? []) if (!kinds.has(t.name)) kinds.set(t.name, "part");
  const given = [world.names ?? {}, ...robots.map((r) => r.names ?? {})];
  const words = [...kinds].map(([name, kind]) => {
    const namings = given.map((g) => g[name]).filter((n): n is Naming => !!n);
    return {
      name,
      kind,
      display: namings.find((n) => n.display)?.display ?? plain(name),
      aliases: [...new Set(namings.flatMap((n) => n.aliases ?? []))],
    };
  });
  const skills = new Map<string, Lexicon["skills"][0]>();
  for (const r of robots) {
    for (const s of r.skills) {
      const k = skills.get(s.name) ?? { name: s.name, display: s.display ?? plain(s.name), aliases: [] };
      k.aliases = [...new Set([...k.aliases, ...(s.aliases ?? [])])];
      skills.set(s.name, k);
    }
  }
  return { words, skills: [...skills.values()] };
}

/** A lexicon of bare names (no display names or aliases given): each name still reads with spaces for underscores. */
const bareLexicon = (labels: string[], places: string[]) =>
  lexicon({ labels, places: places.map((name) => ({ name })) });

// ---- verbs ------------------------------------------------------------------------------------------------------------

/** Verbs that ask for a thing to end up somewhere (all read as "put"), and for one to be found (read as "find"). */
const PUT_VERBS = [
  "put back",
  "put",
  "place",
  "set down",
  "set",
  "stick",
  "store",
  "stash",
  "leave",
  "drop",
  "move",
  "carry",
  "bring",
  "take",
  "transfer",
  "return",
  "fetch",
  "deliver",
  "load",
  "toss",
  "throw",
  "chuck",
  "pop",
  "slide",
  "stow",
  "relocate",
  "shift",
  "get",
  "grab",
  "pick up",
  "tuck",
  "shove",
  "plop",
  "lay",
  "rest",
  "heat up",
  "heat",
  "warm up",
  "warm",
  "cook",
  "bake",
  "roast",
];
const FIND_VERBS = [
  "find",
  "locate",
  "search for",
  "search",
  "look for",
  "look around for",
  "hunt for",
  "seek",
  "spot",
  "track down",
  "go find",
  "try to find",
  "see if you can find",
  "find out where",
  "figure out where",
  "work out where",
  "check where",
  "see where",
  "where is",
  "where are",
  "where's",
];
/** Verbs of getting rid of a thing: with no destination named, the thing goes into the trash. */
const DISPOSE = /^(?:dispose\s+of|get\s+rid\s+of|discard|bin|trash|junk|scrap)\s+(.+)$/i;
const THROW_AWAY = /^(?:throw|toss|chuck|dump)\s+(?:away|out)\s+(.+)$/i;
const THROW_X_AWAY = /^(?:throw|toss|chuck|dump)\s+(.+?)\s+(?:away|out)\b(.*)$/i;
/** Words that ask for a report or state a constraint: understood, no goal of their own. */
const REPORT_VERBS = ["report", "tell", "say", "let", "show", "inform", "shout", "yell"];

const alternation = (words: string[]) =>
  [...words]
    .sort((a, b) => b.length - a.length)
    .map((w) => w.replace(/\s+/g, "\\s+"))
    .join("|");
const PUT_START = new RegExp(`^(?:${alternation(PUT_VERBS)})\\b`, "i");
const FIND_START = new RegExp(`^(?:${alternation(FIND_VERBS)})\\b`, "i");

/** Words that say how much of a thing ("a slice of bread"), not which: a closed class of English measure nouns. */
const MEASURES =
  /^(?:slices?|pieces?|bits?|loaf|loaves|cartons?|bottles?|box(?:es)?|bags?|packets?|packs?|jars?|cans?|tins?|bunch(?:es)?|handful|glass(?:es)?|pairs?|tubs?|portions?|half|couple|lot|lots|chunks?|wedges?|sheets?)$/i;
/** Words for a kind of thing, said after a thing's name ("the orange fruit", "the target spot"). */
const KINDS = /^(?:fruit|food|thing|item|object|stuff|spot|point|mark|position|location|area|bit)$/i;
/** Every word that is a verb to this reader: never a name, nor a word it failed to place. */
const VERB_WORDS = new Set(
  [
    ...PUT_VERBS,
    ...FIND_VERBS,
    ...REPORT_VERBS,
    "dispose",
    "discard",
    "bin",
    "trash",
    "junk",
    "scrap",
    "rid",
    "dump",
    "away",
    "out",
    "know",
    "put",
    "find",
  ].flatMap((v) => v.split(/\s+/)),
);

const MANIPULATE = /\b(put)\b/i;
const FIND = /\b(find)\b/i;
/** Verbs a part of an instruction may start with and still be understood: the two goal kinds, and asking for a report. */
const UNDERSTOOD_VERB = new RegExp(`^(?:put|find|${REPORT_VERBS.join("|")})\\b`, "i");
/** A constraint on how to act ("Do not move anything."; "Leave everything else where it is."): understood, no goal. */
const CONSTRAINT =
  /^(?:do not|don't|dont|never|without|no need to|leave (?:everything|all|the rest|anything|things)(?: else)? (?:where|as)|touch nothing|move nothing)\b/i;
/** Words that lead into a part without being its verb. */
const LEAD =
  /^(?:(?:and|then|also|finally|first|firstly|next|after that|afterwards|please|pls|now|just|kindly|carefully|gently|quickly|simply|could you|can you|would you|will you|would you mind|i want you to|i need you to|i'd like you to|i would like you to|you should|go ahead and|go and|try to|make sure to|robot|robots|hey|let's|let us)(?:\s*,)?\s+|,\s*)+/i;
/** Words after "and" that continue a list of things rather than start a new part. */
const NOT_A_VERB = new Set([
  "the",
  "a",
  "an",
  "it",
  "them",
  "its",
  "their",
  "each",
  "every",
  "all",
  "both",
  "then",
  "my",
  "some",
]);

/** Words that carry no name: articles, pronouns, prepositions, question words and the like. */
const FUNCTION_WORDS = new Set(
  (
    "the a an some my your our this that these those it its them their they he she him her me us you i we and or but then also finally first next " +
    "after afterwards please now just kindly carefully gently quickly simply of in into inside on onto to from out off at by with for up down away " +
    "back over under near beside behind is are be was were been being where which who what whose each every all both one ones any anything " +
    "everything nothing other else rest there here as so if can could would will should must do does did don't dont not never no without " +
    "moving touching touch anything located lies sits sitting lying kept stored currently somewhere around either whether again too while " +
    "that's it's whichever thing things stuff item items robot robots hey pls go ahead mind want need like try sure make know " +
    "once when found well location locations position whereabouts myself because since before until while his hers dear"
  ).split(/\s+/),
);

/**
 * The clause in the reader's own verbs: "dispose of it in the garbage" → "put it in the garbage into the trash";
 * "throw away the tea" → "put the tea into the trash"; "locate the tea" → "find the tea"; "where is the milk?" → "find the milk".
 */
function canonicalVerb(clause: string): string {
  let match: RegExpExecArray | null;
  // Into the trash, whatever else the clause says: "get rid of the pills in the drawer" says where the pills are, and
  // "dispose of it in the garbage" names the trash twice.
  if ((match = DISPOSE.exec(clause) ?? THROW_AWAY.exec(clause)))
    return `put ${match[1].replace(/[.;:!?,]+$/, "")} into the trash`;
  // "Toss the apple", "ditch the milk": thrown, with nowhere said, is thrown away.
  if (
    (match = /^(?:toss|chuck|ditch|dump)\s+(.+)$/i.exec(clause)) &&
    !/\b(?:in|into|on|onto|to|inside|at)\b/i.test(match[1])
  )
    return `put ${match[1].replace(/[.;:!?,]+$/, "")} into the trash`;
  if ((match = THROW_X_AWAY.exec(clause))) return `put ${match[1]} into the trash${match[2]}`;
  // "Put away the bread in the drawer" stores it: "away" is no trash.
  if ((match = /^put\s+away\s+(.+)$/i.exec(clause))) return `put ${match[1]}`;
  // "Look in the fridge for the milk": find it, with a hint where it is.
  if ((match = /^(?:look|search|check)\s+(?:in|inside|on)\s+(.+?)\s+for\s+(.+?)[.!?]*$/i.exec(clause)))
    return `find ${match[2]}, which is in ${match[1]}`;
  // "Tell me where the tea is" asks to find it; "tell me where they are" asks for a report on what was found.
  if (
    (match =
      /^(?:find out|figure out|work out|check|see|tell me|show me|let me know|shout(?: out)?|call out|yell(?: out)?)\s+where\s+(.+?)\s+(?:is|are)\b(.*)$/i.exec(
        clause,
      ))
  ) {
    return /^(?:it|they|them|each(?: one)?|both|all|everything|these|those)$/i.test(match[1])
      ? clause
      : `find ${match[1]}${match[2]}`;
  }
  if ((match = /^(?:where\s+(?:is|are)|where's)\s+(.+?)[?.!]*$/i.exec(clause))) return `find ${match[1]}`;
  if ((match = FIND_START.exec(clause))) return `find${clause.slice(match[0].length)}`;
  if ((match = PUT_START.exec(clause))) return `put${clause.slice(match[0].length)}`;
  return clause;
}

// ---- names ------------------------------------------------------------------------------------------------------------

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Each wording of each name, lower case; a wording two names share is left to the overlap step (it is ambiguous). */
function wordings(lex: Lexicon): Map<string, string> {
  const seen = new Map<string, Set<string>>();
  for (const w of lex.words) {
    for (const form of [w.name, plain(w.name), w.display, ...w.aliases]) {
      const wording = form.toLowerCase().trim();
      if (!wording) continue;
      if (!seen.has(wording)) seen.set(wording, new Set());
      seen.get(wording)!.add(w.name);
    }
  }
  return new Map([...seen].filter(([, names]) => names.size === 1).map(([f, names]) => [f, [...names][0]]));
}

const wordingPatterns = new WeakMap<Lexicon, { forms: Map<string, string>; pattern: RegExp }>();

/** Replaces every wording of a name with the name, longest wording first ("tea bottle" before "tea"). */
function nameWordings(text: string, lex: Lexicon): string {
  let compiled = wordingPatterns.get(lex);
  if (!compiled) {
    const forms = wordings(lex);
    const alternatives = [...forms.keys()]
      .sort((a, b) => b.length - a.length)
      .map((f) => escape(f).replace(/\s+/g, "\\s+") + (/s$/.test(f) ? "" : "(?:e?s)?"));
    // Not inside a name already written with underscores ("tea" in bottle_of_tea): \b treats _ as a word character.
    compiled = {
      forms,
      pattern: new RegExp(alternatives.length ? `\\b(?:${alternatives.join("|")})\\b` : "(?!)", "gi"),
    };
    wordingPatterns.set(lex, compiled);
  }
  const { forms, pattern } = compiled;
  if (!forms.size) return text;
  return text.replace(
    pattern,
    (matched) =>
      forms.get(matched.toLowerCase().replace(/\s+/g, " ")) ??
      forms.get(matched.toLowerCase().replace(/\s+/g, " ").replace(/e?s$/, "")) ??
      matched,
  );
}

/** Edit distance (Levenshtein), for misspellings and for ranking close names. */
export function editDistance(source: string, target: string): number {
  const row = Array.from({ length: target.length + 1 }, (_, j) => j);
  for (let i = 1; i <= source.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= target.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (source[i - 1] === target[j - 1] ? 0 : 1));
      prev = above;
    }
  }
  return row[target.length];
}

/** A word and a name's word are the same, allowing a slip of the keyboard in a long word ("refridgerator"). */
const sameWord = (word: string, nameWord: string) =>
  word === nameWord ||
  (word.length >= 5 &&
    nameWord.length >= 5 &&
    editDistance(word, nameWord) <= (Math.min(word.length, nameWord.length) >= 8 ? 2 : 1)) ||
  swapped(word, nameWord);
/** Two neighbouring letters typed the wrong way round ("mlik", "tabel"), in a word of four letters or more. */
function swapped(word: string, nameWord: string): boolean {
  if (word.length !== nameWord.length || word.length < 4) return false;
  const at = [...word].findIndex((c, i) => c !== nameWord[i]);
  return (
    at >= 0 &&
    at < word.length - 1 &&
    word[at] === nameWord[at + 1] &&
    word[at + 1] === nameWord[at] &&
    word.slice(at + 2) === nameWord.slice(at + 2)
  );
}

/** Every word of every wording of a name. */
const wordTokens = new WeakMap<Word, Set<string>>();
function tokensOf(word: Word): Set<string> {
  let tokens = wordTokens.get(word);
  if (!tokens) wordTokens.set(word, (tokens = new Set([word.name, word.display, ...word.aliases].flatMap(nameTokens))));
  return tokens;
}

/**
 * The name a run of words means by overlap: the one name sharing the most of its words (at least half of them).
 * Ties are ambiguous ("the drawer": top or middle) and name nothing.
 */
function byOverlap(run: string[], lex: Lexicon): { name?: string; tied: string[] } {
  const tokens = nameTokens(run.join(" "));
  if (!tokens.length) return { tied: [] };
  // Navigation points are where robots stand, not what an instruction names ("the fridge" is not "in front of" it).
  const scored = lex.words
    .filter((w) => w.kind !== "navigation_point")
    .map((word) => {
      const mine = [...tokensOf(word)];
      return { w: word, n: tokens.filter((t) => mine.some((v) => sameWord(t, v))).length };
    });
  const best = Math.max(0, ...scored.map((s) => s.n));
  if (best === 0) return { tied: [] };
  const top = scored.filter((s) => s.n === best).map((s) => s.w.name);
  if (top.length === 1 && best * 2 >= tokens.length) return { name: top[0], tied: [] };
  return { tied: top };
}

/** The known names closest to some words: by shared words first, then by spelling. */
export function closestNames(words: string, lex: Lexicon, count = 3): string[] {
  const tokens = nameTokens(words);
  const flat = words
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
  return lex.words
    .filter((w) => w.kind !== "navigation_point")
    .map((word) => {
      const mine = [...tokensOf(word)];
      const shared = tokens.filter((t) => mine.some((v) => sameWord(t, v))).length;
      const spelling = Math.max(
        ...[word.name, word.display, ...word.aliases].map((wording) => {
          const flatWording = wording
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, " ")
            .trim();
          return 1 - editDistance(flat, flatWording) / Math.max(flat.length, flatWording.length, 1);
        }),
      );
      return { name: word.name, score: shared + spelling };
    })
    .filter((x) => x.score >= 0.4)
    .sort((a, b) => b.score - a.score)
    .slice(0, count)
    .map((x) => x.name);
}

/**
 * A clause in the reader's verbs and the world's names: wordings first, then runs of other words by overlap. Words
 * it could not place come back with the closest names.
 */
export function canonicalClause(
  clause: string,
  lex: Lexicon,
  named: ReadonlySet<string> = new Set(),
): { text: string; unplaced: Unplaced[] } {
  const known = new Set(lex.words.map((w) => w.name.toLowerCase()));
  const knownAlt = [...known].map(escape).join("|");
  let text = nameWordings(canonicalVerb(clause), lex);
  const unplaced: Unplaced[] = [];
  // Runs of words that are not names, verbs or function words: each is a phrase that should name something.
  const nameWords = new Set(lex.words.flatMap((w) => [...tokensOf(w)]));
  // A verb's word is a verb where a verb stands (first), and may be a name's word elsewhere ("bin" the noun).
  const isFree = (word: string, first: boolean) => {
    const lower = word.toLowerCase();
    if (known.has(lower) || FUNCTION_WORDS.has(lower) || /^\d+$/.test(word)) return false;
    return !VERB_WORDS.has(lower) || (!first && nameTokens(lower).some((t) => nameWords.has(t)));
  };
  const runs: { start: number; end: number; words: string[] }[] = [];
  for (const m of text.matchAll(/[A-Za-z][A-Za-z0-9_']*/g)) {
    const word = m[0].replace(/'s$/i, "");
    const last = runs.at(-1);
    if (!isFree(word, m.index === 0)) continue;
    // Words are one run when only spaces part them.
    if (last && /^\s+$/.test(text.slice(last.end, m.index))) {
      last.end = m.index! + m[0].length;
      last.words.push(word);
    } else runs.push({ start: m.index!, end: m.index! + m[0].length, words: [word] });
  }
  const nameAfter = (at: number, between: RegExp) => {
    const match = new RegExp(`^${between.source}([A-Za-z][A-Za-z0-9_]*)\\b`, "i").exec(text.slice(at));
    return match && known.has(match[1].toLowerCase()) ? match[0].length - match[1].length : -1;
  };
  for (const r of [...runs].reverse()) {
    const overlap = byOverlap(r.words, lex);
    // "The bottle" after "is there any iced tea left?": of the names it could mean, the one the instruction names elsewhere.
    const said = overlap.tied.filter((t) => named.has(t));
    const name = overlap.name ?? (said.length === 1 ? said[0] : undefined);
    const tied = overlap.tied;
    if (name) {
      text = text.slice(0, r.start) + name + text.slice(r.end);
      continue;
    }
    // "The upper drawer of the cabinet", "on the shelf inside the cabinet": where in or on a thing already named, which
    // says no more of where.
    const ofKnown = new RegExp(`\\b(${knownAlt})\\s+of\\s+(?:the\\s+|its\\s+)?$`, "i").exec(text.slice(0, r.start));
    const inKnown = nameAfter(r.end, /\s+(?:inside|in|of)\s+(?:the\s+)?/);
    const prep = /\s(?:on|in|at)\s+(?:the\s+)?$/i.exec(text.slice(0, r.start));
    if (ofKnown && !tied.length) {
      text = text.slice(0, ofKnown.index + ofKnown[1].length) + text.slice(r.end);
      continue;
    }
    if (prep && inKnown > 0 && !tied.length) {
      text = text.slice(0, prep.index) + text.slice(r.end);
      continue;
    }
    // "The orange fruit", "the target spot": a word for the kind of thing after its name says no more of which.
    const kindAfter = new RegExp(`\\b(?:${knownAlt})\\s+$`, "i").test(text.slice(0, r.start));
    if (kindAfter && r.words.length === 1 && KINDS.test(r.words[0])) {
      text = text.slice(0, r.start).trimEnd() + text.slice(r.end);
      continue;
    }
    // Words that only describe a thing named right after them ("the old sponge"), or say how much of it ("a slice of
    // bread"): the name says which thing.
    const described = nameAfter(r.end, /\s+/);
    const measured = nameAfter(r.end, /\s+of\s+(?:the\s+|some\s+)?/);
    if (described > 0 && describesOnly(r.words, text.slice(0, r.start).trim() || "the"))
      text = text.slice(0, r.start) + text.slice(r.end + described);
    else if (measured > 0 && r.words.length === 1 && MEASURES.test(r.words[0]))
      text = text.slice(0, r.start) + text.slice(r.end + measured);
    // "Out of the drawer" with two drawers: where it comes from is only a hint, and the robot looks for it anyway.
    else if (tied.length > 1 && /\b(?:from|out\s+of|off)\s+(?:the\s+|my\s+)?$/i.test(text.slice(0, r.start)))
      text = `${text.slice(0, r.start)}somewhere${text.slice(r.end)}`;
    else
      unplaced.unshift({
        words: r.words.join(" "),
        closest: tied.length ? tied : closestNames(r.words.join(" "), lex),
      });
  }
  return { text, unplaced };
}

/** A whole text in the reader's verbs and names, clause by clause (what RePLan's goal reader reads). */
export function canonicalText(text: string, lex: Lexicon): { text: string; unplaced: Unplaced[] } {
  const parts = text.split(/(?<=[.;!?])\s+/).map((c) => canonicalClause(c.replace(LEAD, ""), lex));
  return { text: parts.map((p) => p.text).join(" "), unplaced: parts.flatMap((p) => p.unplaced) };
}

// ---- reading -----------------------------------------------------------------------------------------------------------

export function readInstruction(
  text: string,
  labels: string[],
  places: string[],
  lex: Lexicon = bareLexicon(labels, places),
): ReadInstruction {
  const asWritten = readOrders(text, labels, places, lex);
  // Read whole and asking something: as written. A reading that asks nothing (a constraint that ran on into the order,
  // "no need to be quick — just put the cup in the sink") is read again too.
  if (!asWritten.notUnderstood.length && asWritten.goals.length) return asWritten;
  // Read again as the library parses the sentence; kept only when that reads whole and asks something. Otherwise the
  // message names the words as written.
  const plain = restate(text, namesThing(lex));
  if (plain === text) return asWritten;
  // What the instruction names anywhere, statements dropped from the restatement included ("Tea's gone flat. Put the
  // bottle in the sink."), settles a phrase that could name more than one thing.
  const restated = readOrders(plain, labels, places, lex, text);
  return restated.notUnderstood.length || !restated.goals.length ? asWritten : restated;
}

const thingNamers = new WeakMap<Lexicon, Knows>();
/** Whether a phrase names one of the world's things ("object") or only its places ("place"), for "it" to mean that before a person. */
export function namesThing(lex: Lexicon): Knows {
  let namer = thingNamers.get(lex);
  if (!namer) {
    const kinds = new Map(lex.words.map((w) => [w.name.toLowerCase(), w.kind]));
    namer = (phrase) => {
      const { text, unplaced } = canonicalClause(phrase, lex);
      if (unplaced.length) return false;
      const named = text
        .split(/[^A-Za-z0-9_]+/)
        .map((w) => kinds.get(w.toLowerCase()))
        .filter(Boolean);
      return named.some((k) => k === "object" || k === "part") ? "object" : named.length ? "place" : false;
    };
    thingNamers.set(lex, namer);
  }
  return namer;
}

/** The rules' reading of an instruction: clause by clause, verbs and names as the lists above give them. */
function readOrders(text: string, labels: string[], places: string[], lex: Lexicon, context = text): ReadInstruction {
  const goals: string[] = [];
  const told: { object: string; place: string }[] = [];
  const notUnderstood: string[] = [];
  const unplaced: Unplaced[] = [];
  // Words that may follow "and" inside a list of things: names and the words of their wordings (verbs excepted).
  const names = new Set(
    [...labels, ...places, ...lex.words.flatMap((w) => [...tokensOf(w)])]
      .map((n) => n.toLowerCase())
      .filter((n) => !VERB_WORDS.has(n)),
  );
  const verbs = alternation([
    ...PUT_VERBS,
    ...FIND_VERBS,
    "dispose of",
    "discard",
    "get rid of",
    "bin",
    "trash",
    "throw",
    "toss",
  ]);
  const clauses = text
    // A comma before a verb of the reader's starts another part too ("put the cup in the sink, after that find the sponge").
    .split(
      new RegExp(
        `(?<=[.;:!?])\\s+|,\\s+and\\s+(?=(?:then\\s+)?(?:${verbs})\\b)|\\s+then\\s+|,\\s+(?:after\\s+that\\s+|afterwards\\s+|next\\s+)?(?=(?:${verbs})\\b)`,
        "i",
      ),
    )
    // "… and <verb> …" starts another part ("find the tea and dispose of it"); "and the apple" continues a list.
    .flatMap((sentence) =>
      sentence.split(/\s+and\s+(?=([a-z']+)\b)/i).reduce<string[]>((parts, piece, i, all) => {
        // split() interleaves the captured next word: even indices are text, odd ones the word after "and".
        if (i % 2 === 1) return parts;
        const word = (all[i - 1] ?? "").toLowerCase();
        if (i === 0 || NOT_A_VERB.has(word) || names.has(word) || nameTokens(word).some((t) => names.has(t))) {
          if (i === 0) parts.push(piece);
          else parts[parts.length - 1] += ` and ${piece}`;
        } else parts.push(piece);
        return parts;
      }, []),
    )
    .map((c) => c.trim())
    .filter(Boolean);
  let lastObjects: string[] = [];
  // Names the instruction says unambiguously anywhere, to settle a phrase that could mean more than one of them.
  const contextClauses = context === text ? [] : context.split(/(?<=[.;:!?,])\s+/);
  const namedAnywhere = new Set(
    [...clauses, ...contextClauses]
      .flatMap((c) => canonicalClause(c.replace(LEAD, ""), lex).text.split(/[^A-Za-z0-9_]+/))
      .filter((w) => lex.words.some((x) => x.name === w)),
  );
  const mentions = (clauseText: string, names: string[]) =>
    names
      .map((n) => ({ n, i: clauseText.search(new RegExp(`\\b${n}\\b`, "i")) }))
      .filter((m) => m.i >= 0)
      .sort((a, b) => a.i - b.i);
  const placeAlt = places.map(escape).join("|");
  for (const original of clauses) {
    // A lead alone ("After that," before the order the comma split off) asks nothing.
    const written = `${original} `
      .replace(LEAD, "")
      .trim()
      .replace(/[.;:!?]+$/, "");
    if (!written) continue;
    if (CONSTRAINT.test(written)) continue;
    const { text: clause, unplaced: here } = canonicalClause(written, lex, namedAnywhere);
    const part = written;
    const objs = mentions(clause, labels).map((m) => m.n);
    // "X, which is/are in/on the P" and "X from/out of the P" state where X is.
    for (const o of objs) {
      const placedAt =
        new RegExp(
          `\\b${o}\\b,?\\s+(?:(?:which|that)\\s+(?:is|are)|that's|sitting|lying|kept|stored)\\s+(?:in|on|inside)\\s+(?:the\\s+)?(${placeAlt})\\b`,
          "i",
        ).exec(clause) ??
        new RegExp(
          `\\b${o}\\b,?\\s+(?:(?:which|that)\\s+(?:is|are)\\s+)?(?:from|out\\s+of|off)\\s+(?:the\\s+)?(${placeAlt})\\b`,
          "i",
        ).exec(clause);
      if (placedAt) told.push({ object: o, place: placedAt[1].toLowerCase() });
    }
    const subjects = objs.length ? objs : /\b(it|them)\b/i.test(clause) ? lastObjects : [];
    const notRead = (why: string) => {
      notUnderstood.push(part);
      // The words that name nothing; failing those, what is missing.
      unplaced.push(...(here.length ? here : [{ words: part, closest: [], why }]));
    };
    const things = subjects.length ? `the ${subjects.join(" and the ")}` : "it";
    if (!UNDERSTOOD_VERB.test(clause)) {
      // Its first word is the verb it does not know ("wash"), whatever names the rest places.
      const verb = part.split(/\s+/)[0];
      const rest = here
        .map((phrase) =>
          phrase.words.toLowerCase().startsWith(verb.toLowerCase())
            ? { ...phrase, words: phrase.words.slice(verb.length).trim() }
            : phrase,
        )
        .filter((u) => u.words);
      notUnderstood.push(part);
      unplaced.push({ words: verb, closest: [], why: "no action I can read" }, ...rest);
    } else if (here.length) {
      notRead("");
    } else if (MANIPULATE.test(clause)) {
      // The destination is the last place named after a preposition, outside "which is in …" asides.
      const stripped = clause.replace(
        new RegExp(
          `,?\\s+(?:(?:which|that)\\s+(?:is|are)|that's|sitting|lying|kept|stored)\\s+(?:in|on|inside)\\s+(?:the\\s+)?(?:${placeAlt})\\b,?`,
          "gi",
        ),
        " ",
      );
      // "In the middle drawer, not in the top one": a place it is not to go is no destination.
      const unwanted = new RegExp(
        `,?\\s+(?:and\\s+)?not\\s+(?:(?:in|into|on|onto|to|inside)\\s+)?(?:the\\s+)?(?:${placeAlt})\\b`,
        "gi",
      );
      const dests = [
        ...stripped
          .replace(unwanted, (m) => " ".repeat(m.length))
          .matchAll(new RegExp(`\\b(?:into|in|on|onto|to|inside)\\s+(?:the\\s+)?(${placeAlt})\\b`, "gi")),
      ].map((m) => ({ at: m.index!, place: m[1].toLowerCase() }));
      const dest = dests.at(-1)?.place;
      const from = new RegExp(`\\b(?:from|out\\s+of|off)\\s+(?:the\\s+)?(?:${placeAlt}|somewhere)\\b`, "i").test(
        stripped,
      );
      // Each thing goes to the last place named before the next thing ("the tea on the table and the burger in the
      // oven"); what names no place of its own goes to the clause's last.
      const named = mentions(stripped, labels);
      // "put it on the table, and the burger in the oven": the thing "it" stands for comes first.
      const pronoun = /\b(?:it|them)\b/i.exec(stripped);
      if (named.length && pronoun && pronoun.index < named[0].i)
        named.unshift(
          ...lastObjects.filter((o) => !named.some((x) => x.n === o)).map((n) => ({ n, i: pronoun.index })),
        );
      if (dest && named.length) {
        named.forEach((mention, k) =>
          goals.push(
            `in(${mention.n}, ${dests.filter((d) => d.at > mention.i && d.at < (named[k + 1]?.i ?? Infinity)).at(-1)?.place ?? dest})`,
          ),
        );
      } else if (dest && subjects.length) for (const o of subjects) goals.push(`in(${o}, ${dest})`);
      // "Take the milk out of the fridge" says where the milk is; what to do with it comes next.
      else if (from && subjects.length && !dest) {
        /* told above */
      }
      // A placement that names no known thing or no known destination cannot be done as asked.
      else
        notRead(
          subjects.length
            ? `it names no place I know to put ${things} in`
            : "it names no thing I know to put somewhere",
        );
    } else if (FIND.test(clause)) {
      if (subjects.length) for (const o of subjects) goals.push(`found(${o})`);
      else notRead("it names no thing I know to find");
    }
    if (objs.length) lastObjects = objs;
  }
  // A "find X and put it …" sentence asks for the placement, which implies having found it.
  const placed = new Set(goals.filter((g) => g.startsWith("in(")).map((g) => g.slice(3, g.indexOf(","))));
  return {
    goals: [...new Set(goals.filter((g) => !(g.startsWith("found(") && placed.has(g.slice(6, -1)))))],
    told,
    notUnderstood,
    unplaced,
  };
}

/**
 * Why an instruction cannot be acted on, for a person: the parts not understood, the words it could not place with the
 * closest names, and what it knows (objects, places, skills).
 */
export function notUnderstoodMessage(
  reading: Pick<ReadInstruction, "notUnderstood" | "unplaced">,
  lex: Lexicon,
): string {
  const quote = (s: string) => `"${s}"`;
  const parts = reading.notUnderstood.length
    ? `the instruction is not understood: ${reading.notUnderstood.map(quote).join(", ")}`
    : "the instruction names no goal I can read";
  const placed = reading.unplaced.filter((u) => !u.why);
  const words = placed.map(
    (u) => `${quote(u.words)}${u.closest.length ? ` (closest: ${u.closest.join(", ")})` : " (nothing close)"}`,
  );
  const missing = reading.unplaced.flatMap((u) => (u.why ? [`${quote(u.words)}: ${u.why}`] : []));
  const list = (kind: Word["kind"]) =>
    lex.words
      .filter((w) => w.kind === kind)
      .map((w) => w.name)
      .join(", ");
  const known = [
    `objects: ${list("object") || "none"}`,
    `places: ${list("place") || "none"}`,
    ...(lex.skills.length ? [`skills: ${lex.skills.map((s) => s.name).join(", ")}`] : []),
  ];
  return `${parts}; ${words.length ? `could not place ${words.join(", ")}; ` : ""}${missing.length ? `${missing.join("; ")}; ` : ""}I know ${known.join("; ")}; I can read: find X, put X in/on P, throw away X`;
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
  const tokens = new Set(nameTokens(name));
  let best: string | undefined;
  let bestScore = 0;
  for (const k of known) {
    const candidate = nameTokens(k);
    const shared = candidate.filter((w) => tokens.has(w)).length;
    const score = shared / new Set([...tokens, ...candidate]).size;
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
