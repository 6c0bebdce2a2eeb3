/**
 * How a sentence is built, read with an NLP library and said again in the reader's own plain orders: a passive ("the
 * apple should be heated in the oven" → "heat the apple in the oven"), a polite frame ("could you please…", "would you
 * mind throwing…", "I want the vitamins thrown away"), a means ("get rid of the tea by putting it in the bin" → "put
 * the tea in the bin"), a purpose dropped ("… so that it stays cold", "… to keep it cold"), a two-part task ("grab the
 * orange and then drop it into the sink" → "drop the orange into the sink"), and "it"/"them" said as the thing they
 * stand for. Names are not touched here: the reader maps the phrases to the world's names afterwards.
 *
 * The library is compromise (pinned in package.json): pure JavaScript with its English lexicon built in, so there is no
 * model package to fetch at install or run time, and it loads under ESM, tsx and vitest alike. It tags each word
 * (verb, participle, gerund, determiner, noun, preposition, pronoun) and conjugates a verb back to its infinitive
 * ("heated" → "heat", "putting" → "put"); the rules below work on those tags.
 * wink-nlp was the other candidate: its English model is a separate package, which is more to pin and fetch for what
 * this needs.
 */
import nlp from "compromise";

interface Term {
  text: string;
  /** Lower case, without the punctuation around it. */
  word: string;
  tags: Set<string>;
}

const termsOf = (text: string): Term[] =>
  (nlp(text).terms().json() as { text: string; terms: { tags: string[]; normal: string }[] }[]).map((t) => ({
    text: t.text.replace(/[.,;:!?]+$/, ""),
    word: t.terms[0].normal.replace(/[^a-z0-9']+/g, ""),
    tags: new Set(t.terms[0].tags),
  }));

const isVerb = (t?: Term) => !!t && t.tags.has("Verb") && !t.tags.has("Auxiliary") && !t.tags.has("Modal");
/** A verb's infinitive, as the library conjugates it ("thrown" → "throw"; "placing" → "place"). */
function infinitive(word: string): string {
  const doc = nlp(word);
  // Alone, "heated" may be taken for an adjective: it stands where a verb does.
  doc.tag("Verb");
  return doc.verbs().toInfinitive().text().toLowerCase() || word.toLowerCase();
}

/** Verbs the reader does not list but that mean putting a thing somewhere to keep it so. */
const PUTTING = new Set(["chill", "cool", "refrigerate"]);
/** Verbs that only take a thing in hand: with no place named and the next part saying where "it" goes, that part says it all. */
const TAKING = /^(?:pick\s+up|pick|grab|take|get|fetch|lift|collect)\b/i;
/** A place named after a preposition: a destination or an origin. */
const TARGET = /\b(?:in|into|inside|on|onto|to|at|out\s+of|from|off|away|out)\b/i;

/** Words that frame an order without being it. */
const POLITE = /^(?:(?:please|kindly|pls|now|just|also|first|firstly|then|next|finally|and|ok|okay|hey|robot)\b,?\s*|(?:could|can|would|will)\s+you(?:\s+(?:please|kindly))?\s+|you\s+(?:can|could|should|must|may)\s+|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to\s+|make\s+sure(?:\s+that)?\s+|(?:go\s+and|go\s+ahead\s+and|try\s+to)\s+)+/i;
/** Where a purpose starts: what the order is for, which asks nothing more of the robot. */
const PURPOSE = /,?\s+(?:so\s+that|so(?=\s+(?:it|they|i|we|you|he|she|that)\b)|in\s+order\s+to|to\s+(?:keep|stay|make|let|help|cool|warm|stop|prevent|avoid))\b.*$/i;

/** The words of one order said plainly (unchanged where the sentence is built in no way known here). */
function restateClause(clause: string): string {
  let c = clause.trim().replace(/[.;:!?,]+$/, "").replace(POLITE, "").replace(PURPOSE, "");
  // "Help me tidy up by moving the cup to the sink"; "get rid of the tea by putting it in the bin": the means is the
  // order, and "it" in it is the thing the first part names.
  const by = /^(.*?)\s+by\s+([a-z]+ing)\b(.*)$/i.exec(c);
  if (by && termsOf(c).some((t) => t.word === by[2].toLowerCase() && t.tags.has("Verb"))) {
    const thing = objectOf(by[1]);
    const rest = thing ? by[3].replace(/\b(?:it|them)\b/i, thing) : by[3];
    c = `${infinitive(by[2])}${rest}`;
  }
  c = c.replace(POLITE, "");
  const terms = termsOf(c);
  if (!terms.length) return c;
  // "(would you) mind throwing the medication …", "try putting …": the gerund is the order.
  const gerund = /^(?:mind|try|start|begin)\s+([a-z]+ing)\b/i.exec(c);
  if (gerund && terms[1]?.tags.has("Verb")) c = `${infinitive(gerund[1])}${c.slice(gerund[0].length)}`;
  // "search the kitchen for the bread": find the bread.
  const search = /^(?:search|look\s+through|look\s+around|check|scan)\s+(?!for\b)(.+?)\s+for\s+(.+)$/i.exec(c);
  if (search) return `find ${search[2]}`;
  return passive(c) ?? c;
}

/**
 * A sentence whose thing comes first, said as an order: "the milk should be put back in the fridge" → "put the milk
 * back in the fridge"; "I want the vitamins thrown away" → "throw the vitamins away"; "the bread needs to go in the
 * drawer" → "put the bread in the drawer". Undefined for a sentence that starts with its verb.
 */
function passive(c: string): string | undefined {
  const terms = termsOf(c);
  // The frame before the thing: "I want", "I need", "I'd like", "have", "get".
  let start = 0;
  const frame = /^(?:(?:i|we)\s+(?:want|need|would\s+like|'d\s+like|like)|have|get)\s+/i.exec(c);
  if (frame) start = termsOf(frame[0]).length;
  else if (isVerb(terms[0]) && !terms[0].tags.has("Determiner")) return undefined;
  // The thing: from its determiner up to the verb that says what becomes of it.
  if (!terms[start] || !(terms[start].tags.has("Determiner") || terms[start].tags.has("Noun")) || terms[start].tags.has("Pronoun")) return undefined;
  let end = start + 1;
  while (end < terms.length && !isVerb(terms[end]) && !/^(?:both|all|should|must|needs?|has|have|ought|is|are|to|be|will|can)$/.test(terms[end].word)) end++;
  const thing = terms.slice(start, end).map((t) => t.text).join(" ").replace(/^\w/, (x) => x.toLowerCase());
  let i = end;
  let be = !!frame;
  for (; i < terms.length && /^(?:both|all|should|must|needs?|has|have|ought|is|are|to|be|been|will|can|gets?)$/.test(terms[i].word); i++) be ||= /^(?:is|are|be|been|gets?)$/.test(terms[i].word);
  const verb = terms[i];
  if (!verb || !verb.tags.has("Verb")) return undefined;
  const rest = terms.slice(i + 1).map((t) => t.text).join(" ");
  // "goes in", "ends up in", "is in": where it is to be.
  if (/^(?:go|goes|end|ends|be)$/.test(verb.word)) {
    const after = rest.replace(/^up\s+/i, "");
    return TARGET.test(after.split(/\s+/)[0] ?? "") ? `put ${thing} ${after}` : undefined;
  }
  // After "be" any verb is its participle ("should be put back"); without it, only a participle is ("thrown away").
  if (!(be || verb.tags.has("PastTense") || verb.tags.has("Participle"))) return undefined;
  const v = infinitive(verb.word);
  return `${PUTTING.has(v) ? "put" : v} ${thing}${rest ? ` ${rest}` : ""}`;
}

/** The thing a part names after its verb ("get rid of the tea bottle" → "the tea bottle"), for "it" to stand for. */
function objectOf(part: string): string | undefined {
  const m = /\b((?:the|a|an|this|that|these|those|my|your|our)\s+[^,.;]+?)(?=\s+(?:off|from|out\s+of|in|into|on|onto|to|inside|and|then|by|with|at)\b|[,.;]|$)/i.exec(part);
  return m?.[1];
}

/** Whether a part starts another order ("and then drop it …"), by the library's tag on its first word. */
const startsOrder = (text: string) => {
  const first = termsOf(text)[0];
  return !!first && isVerb(first) && !first.tags.has("Gerund") && !first.tags.has("PastTense");
};

/** Instructions already said again: every node of every step reads the instruction anew, and parsing takes milliseconds. */
const said = new Map<string, string>();

/**
 * The instruction said again as plain orders, one per sentence, in the reader's verbs where the library knows the
 * word's infinitive; a part built in no way known here is kept as written, for the reader to name what it cannot read.
 */
export function restate(text: string): string {
  const known = said.get(text);
  if (known !== undefined) return known;
  const plain = restateSentences(text);
  if (said.size >= 64) said.delete(said.keys().next().value!);
  said.set(text, plain);
  return plain;
}

function restateSentences(text: string): string {
  const parts: string[] = [];
  for (const sentence of text.split(/(?<=[.;:!?])\s+/)) {
    // Two orders in one sentence: "X and then Y", "X, then Y", "X and Y" where Y starts with a verb.
    const pieces = sentence.split(/,?\s+and\s+then\s+|,\s*then\s+|\s+then\s+/i).flatMap((p) => {
      const out: string[] = [];
      for (const bit of p.split(/,?\s+and\s+/i)) {
        if (out.length && startsOrder(bit)) out.push(bit);
        else if (out.length) out[out.length - 1] += ` and ${bit}`;
        else out.push(bit);
      }
      return out;
    });
    parts.push(...pieces.map(restateClause).filter((p) => p.trim()));
  }
  // "It" and "them" said as the thing they stand for.
  let last: string | undefined;
  const orders = parts.map((p, k) => {
    let q = p;
    if (last) q = q.replace(/\b(?:it|them)\b/i, last);
    const next = parts[k + 1];
    const thing = objectOf(q);
    // The next part says where it goes, with "it" said as the thing: taking it in hand is part of that.
    if (TAKING.test(q) && !TARGET.test(q.replace(TAKING, "").replace(thing ?? "", "")) && next && /\b(?:it|them)\b/i.test(next) && thing) q = "";
    else {
      const v = infinitive(q.split(/\s+/)[0] ?? "");
      if (PUTTING.has(v)) q = `put${q.slice(q.split(/\s+/)[0].length)}`;
    }
    if (thing) last = thing;
    return q;
  });
  return orders.filter(Boolean).map((p) => `${p.charAt(0).toUpperCase()}${p.slice(1)}.`).join(" ");
}
