/**
 * How a sentence is built, read with an NLP library and said again in the reader's own plain orders: a passive ("the
 * apple should be heated in the oven" → "heat the apple in the oven"), a polite frame ("could you please…", "would you
 * mind throwing…", "I want the vitamins thrown away"), a means ("get rid of the tea by putting it in the bin" → "put
 * the tea in the bin"), a purpose dropped ("… so that it stays cold", "… to keep it cold"), a two-part task ("grab the
 * orange and then drop it into the sink" → "drop the orange into the sink"), and "it"/"them" said as the thing they
 * stand for. Also: contractions in full ("I'd" → "I would"), polite frames of any length that hand the order to "you",
 * where-questions ("where might the milk be?" → "find the milk"), a list or a passive carried on after "and", and a
 * purpose that says where the thing ends up ("so that it is inside the cabinet") as its destination. Names are not
 * touched here: the reader maps the phrases to the world's names afterwards.
 *
 * Before any of that, a sentence is cut into clauses ("…, so …", "once you've …, …", a heading before a colon, an aside
 * in brackets) and each is classed: an order (imperative, a wish, a passive with "should"/"needs"), a statement of how
 * things are ("the cup is chipped", "I think the apple is in the microwave" — it asks nothing, but its things are what
 * "it", "there" and "the red one" mean next), or politeness and steps the robot takes anyway (dropped). A correction
 * ("no wait, the middle one", "sorry, not the oven, I meant …") replaces the order before it; "the bread too" repeats
 * it with another thing; texting is said in full first ("u", "wheres", "pleeease", "->").
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
  /** Punctuation follows it (a comma, a full stop): a phrase ends there. */
  stop: boolean;
}

const termsOf = (text: string): Term[] =>
  (nlp(text).terms().json() as { text: string; terms: { tags: string[]; normal: string; post?: string }[] }[]).map(
    (term) => ({
      text: term.text.replace(/[.,;:!?]+$/, ""),
      word: term.terms[0].normal.replace(/[^a-z0-9']+/g, ""),
      tags: new Set(term.terms[0].tags),
      stop: /[.,;:!?]/.test(term.terms[0].post ?? ""),
    }),
  );

const isVerb = (t?: Term) => !!t && t.tags.has("Verb") && !t.tags.has("Auxiliary") && !t.tags.has("Modal");
/** Words an order may carry before its verb without changing it: "also", "then", "quickly" (adverbs, by the library's tags). */
const isAdverb = (t?: Term) => !!t && t.tags.has("Adverb") && !t.tags.has("Verb");
/** "I'd", "it's", "don't" said in full ("I would", "it is", "do not"), as the library expands them. */
function expandContractions(text: string): string {
  if (!/'/.test(text)) return text;
  const doc = nlp(text);
  doc.contractions().expand();
  return doc.text();
}

/** A verb's infinitive, as the library conjugates it ("thrown" → "throw"; "placing" → "place"). */
function infinitive(word: string): string {
  const doc = nlp(word);
  // Alone, "heated" may be taken for an adjective: it stands where a verb does.
  doc.tag("Verb");
  const plain = doc.verbs().toInfinitive().text().toLowerCase() || word.toLowerCase();
  if (plain !== word.toLowerCase()) return plain;
  // "left" alone reads as the side: said as a past tense, it is "leave".
  const past = nlp(word);
  past.tag("PastTense");
  return past.verbs().toInfinitive().text().toLowerCase() || plain;
}

/** Verbs the reader does not list but that mean putting a thing somewhere to keep it so. */
const PUTTING = new Set(["chill", "cool", "refrigerate", "keep", "hide", "stash"]);
/** Verbs of taking a thing out of a place, said with the reader's "take" ("remove the tea from the fridge"). */
const TAKING_WORDS = new Set(["remove", "retrieve"]);
const plainVerb = (v: string) => (PUTTING.has(v) ? "put" : TAKING_WORDS.has(v) ? "take" : v);
/**
 * Verbs that only take a thing in hand, or say what it is for ("warm up the burger", "toast the loaf"): with no place
 * named and the next part saying where "it" goes, that part says it all.
 */
const TAKING =
  /^(?:pick\s+up|pick|grab|take|get|fetch|bring|lift|collect|warm(?:\s+up)?|heat(?:\s+up)?|reheat|toast|cook|bake|roast)\b/i;
/** A place named after a preposition: a destination or an origin. */
const TARGET = /\b(?:in|into|inside|on|onto|to|at|out\s+of|from|off|away|out)\b/i;

/** Words said to the listener, not of the task ("…, dear", "love"): asking nothing. */
const ADDRESS = "dear|love|honey|sweetie|mate";
/** Words that frame an order without being it. */
const POLITE =
  /^(?:please,?\s+to\s+|(?:maybe|perhaps)\s+(?=(?:put|place|move|take|bring|throw|find|get|stick|pop|toss|you)\b)|(?:thereafter|subsequently|afterward)\b,?\s*|(?:hi|hello|yo|hiya|morning|evening)\b[,!]*\s*|sorry\s+to\s+(?:bother|trouble|disturb)\s+you,?\s*|(?:second|secondly|third|thirdly|lastly|last|only)\b,?\s*|(?:i|we)\s+(?:think|guess|suppose|reckon|feel)(?:\s+that)?\s+(?=(?:it|they|the|my|this|that|these|those)\b[^,]*?\b(?:should|ought|must|needs?|has\s+to|have\s+to)\b)|excuse\s+me,?\s*|(?:sorry|pardon)\b,?\s*|for\s+now,?\s+|(?:please|kindly|pls|now|just|also|first|firstly|then|next|finally|and|ok|okay|hey|robot|ugh|oh|um|hmm|well|so|right|alright|heads\s+up|at\s+least|by\s+the\s+way)\b,?\s*|(?:could|can|would|will)\s+you(?:\s+(?:please|kindly))?\s+|you\s+(?:can|could|should|must|may)\s+|i\s+(?:want|need|would\s+like|'d\s+like)\s+you\s+to\s+|make\s+sure(?:\s+that)?\s+|help\s+(?:me|us)\s+(?:to\s+)?|(?:go\s+and|go\s+ahead\s+and|try\s+to)\s+|let\s+us\s+|let's\s+|(?:would|will|is)\s+it\s+be\s+(?:possible|ok(?:ay)?|alright|all\s+right)\s+(?:for\s+you\s+)?to\s+|do\s+(?:me|us)\s+a\s+(?:favou?r|kindness)\s+and\s+|(?:hurry(?:\s+up)?|quick|quickly)\b,?\s*|be\s+so\s+kind\s+(?:as\s+to|and)\s+|you\s+(?:might|may|could)\s+as\s+well\s+|(?:i\s+)?(?:want|would\s+like)\s+that\s+you\s+)+/i;
/** Words before an order that name no thing (no determiner but "any"/"some", no possessive): a frame about asking. */
const namesNothing = (words: Term[]) =>
  !words.some((t) => (t.tags.has("Determiner") && !/^(?:any|some|no)$/.test(t.word)) || t.tags.has("Possessive"));
/**
 * A polite frame of any length that ends by handing the order to "you": "do you think you could …", "I was wondering if
 * you could …", "would it be possible for you to …", "is there any chance you could …". Stripped only when what comes
 * before it names no thing (no determiner or possessive: the frame is about asking, not about what) and a verb follows.
 */
const YOU_FRAME =
  /\b(?:if\s+you(?:\s+(?:could|can|would|will|might))?|you\s+(?:could|can|would|will|might|may)|for\s+you\s+to|you\s+to)\s+(?:(?:please|kindly|possibly|maybe|perhaps|just|quickly)\s+)*(?:be\s+able\s+to\s+|go\s+ahead\s+and\s+)?/i;
function dropYouFrame(clause: string): string {
  const frame = YOU_FRAME.exec(clause);
  if (!frame) return clause;
  const before = termsOf(clause.slice(0, frame.index));
  const after = clause.slice(frame.index + frame[0].length);
  return namesNothing(before) && startsOrder(after) ? after : clause;
}
/** Politeness after the order: ", that would be great", ", if you can", ", thanks". */
const TRAILING =
  /,?\s+(?:(?:that|it)\s+would\s+be\s+(?:\w+\s+)?\w+|if\s+(?:you\s+(?:can|could|would|do\s+not\s+mind|please)|possible)|when\s+you\s+(?:can|get\s+a\s+chance|have\s+a\s+(?:moment|minute|second))|thanks?(?:\s+you)?(?:\s+(?:so\s+much|a\s+lot|very\s+much|in\s+advance))?|cheers|please|(?:would|could|will|can)\s+you(?:\s+please)?|right\s+now|now|dear|love|mate|buddy|pal|yes|ok(?:ay)?|thanks|mind|from\s+now\s+on|for\s+good|you\s+see|you\s+know|out\s+of\s+(?:sight|reach)|if\s+(?:that|it)\s+is\s+(?:all\s+right|alright|ok(?:ay)?|fine))$/i;
/** "Where might the milk be?", "any idea where the tea went?": the question asks for the thing to be found. */
function whereQuestion(clause: string): string | undefined {
  const at = /\bwhere\b/i.exec(clause);
  // Asked after a frame that names nothing ("where …", "do you know where …", "any idea where …"): "put the cup in the
  // sink where the sponge is" is an order, not a question.
  if (!at || !namesNothing(termsOf(clause.slice(0, at.index)))) return undefined;
  // "Where does the milk go?" asks where it belongs, not where it is.
  if (/\b(?:go|goes|belong|belongs)\s*\??$/i.test(clause) && !/\bdid\b/i.test(clause)) return undefined;
  // "… where it is so I can wash my plate": "it", whatever the purpose after it names.
  if (/^\s*(?:it|they)\s+(?:is|are|was|were|went|might|could|may)\b/i.test(clause.slice(at.index + at[0].length)))
    return "find it";
  // The thing: from the first word of a noun phrase that is not a person ("I", "you") up to the next verb ("be",
  // "went", "is kept") or a preposition other than "of" — "the orange and the apple" stays whole.
  const terms = termsOf(clause.slice(at.index + at[0].length));
  const from = terms.findIndex(
    (term) =>
      !term.tags.has("Pronoun") &&
      !term.tags.has("Verb") &&
      (term.tags.has("Determiner") ||
        term.tags.has("Noun") ||
        term.tags.has("Adjective") ||
        term.tags.has("Possessive")),
  );
  if (from < 0) return undefined;
  let to = from + 1;
  while (
    to < terms.length &&
    !terms[to].tags.has("Verb") &&
    !(terms[to].tags.has("Preposition") && terms[to].word !== "of")
  )
    to++;
  const thing = terms
    .slice(from, to)
    .map((t) => t.text)
    .join(" ");
  // "Tell me where each one is": where the things already asked for are, a report.
  if (
    /^(?:each(?:\s+one)?|both(?:\s+of\s+them)?|all(?:\s+of\s+them)?|everything|anything|something|things)$/i.test(thing)
  )
    return undefined;
  return `find ${thing}`;
}
/** "Have you seen the milk?", "can you spot the tea anywhere?": asking whether it was seen asks for it to be found. */
const SEEN =
  /^(?:(?:have|has|did|do|can|could)\s+(?:you|anyone|anybody|somebody|someone)\s+(?:\w+\s+)?)?(?:seen|see|spotted|spot|noticed|notice)\s+(.+?)(?:\s+(?:anywhere|around(?:\s+here)?|lately|recently|today))*$/i;
/** Prepositions that say where a thing ends up. */
const LOCATION = /^(?:in|into|inside|on|onto|at|under|underneath|beside|next|near|within)$/i;
/**
 * A purpose that says where the thing ends up ("move the block so that it is inside the cabinet"; "so it ends up on
 * the table"; "to get it into the fridge"): that place is the destination, when the order names none. The purpose's
 * subject is the thing (it, they, a noun phrase), not a person ("so that I can wash it" asks nothing of where).
 */
function purposePlace(clause: string): string | undefined {
  const purpose = /,?\s+(?:so\s+that|so|such\s+that|until|(?:in\s+order\s+)?to\s+(?:get|have))\s+(.+)$/i.exec(clause);
  if (!purpose) return undefined;
  const main = clause.slice(0, purpose.index);
  // The order names a destination of its own: the purpose adds nothing to where.
  if (
    termsOf(main)
      .slice(1)
      .some((t) => LOCATION.test(t.word) || t.word === "to")
  )
    return undefined;
  const terms = termsOf(purpose[1]);
  let i = 0;
  if (/^(?:i|we|you|he|she|me|us)$/.test(terms[0]?.word ?? "")) return undefined;
  // The subject: "it", "they", or a noun phrase up to its verb ("the yellow block is …").
  while (
    i < terms.length &&
    !isVerb(terms[i]) &&
    !terms[i].tags.has("Copula") &&
    !terms[i].tags.has("Auxiliary") &&
    !LOCATION.test(terms[i].word)
  )
    i++;
  if (i === 0 || i > 5) return undefined;
  // Its verbs ("is", "will be", "ends up", "sits", "gets put"), then where.
  while (
    i < terms.length &&
    (terms[i].tags.has("Verb") || isAdverb(terms[i]) || terms[i].tags.has("Particle")) &&
    !LOCATION.test(terms[i].word)
  )
    i++;
  if (!terms[i] || !LOCATION.test(terms[i].word)) return undefined;
  // "Swap it out so that the red cube is on the crate": a thing named in the purpose is what goes there.
  if (/^(?:the|a|an|my|this|that)$/.test(terms[0].word))
    return `put ${terms
      .slice(0, i)
      .filter((t) => !isVerb(t) && !t.tags.has("Copula"))
      .map((t) => t.text)
      .join(" ")} ${terms
      .slice(i)
      .map((t) => t.text)
      .join(" ")}`;
  return `${main} ${terms
    .slice(i)
    .map((t) => t.text)
    .join(" ")}`;
}
/**
 * What an order is for, said with "for" at its end: for whom or when ("for me", "for tomorrow"), or, once the order has
 * said where the thing goes, what it is for ("on the table for breakfast"). Kept after a verb of looking ("look in the
 * fridge for the milk"), where it names the thing.
 */
function dropFor(clause: string): string {
  // "For Mr Jones", "for Doris": for whom, wherever it is said.
  clause = clause.replace(/\s+for\s+(?:(?:[Mm]rs?|[Mm]s|[Mm]iss|[Dd]r)\.?\s+)?[A-Z][a-z]+\b/g, "");
  const bare = clause.replace(
    /\s+for\s+(?:me|us|you|him|her|them|now|later|later\s+on|tonight|today|tomorrow|the\s+(?:morning|evening|night|weekend)|a\s+(?:sec|second|minute|moment|bit|while)|a\s+(?:couple|few)\s+(?:of\s+)?(?:minutes|mins|hours|seconds)|(?:\w+\s+)?(?:minutes|mins|hours))$/i,
    "",
  );
  if (bare !== clause) return bare;
  const match = /^(.*?)\s+for\s+(?!the\s+(?:one|ones)\b)[^,]+$/i.exec(clause);
  if (!match || /^(?:look|search|check|hunt|ask|scan|go|come)\b/i.test(clause)) return clause;
  const words = termsOf(match[1]);
  return words.slice(1).some((t) => LOCATION.test(t.word) || t.word === "to") ? match[1] : clause;
}
/**
 * A wish for how things end up: "I'd love it if the orange were in the fridge", "make sure the cup is in the sink", "it
 * would be great if the bread ended up in the drawer" — put the thing there.
 */
const WISH =
  /^(?:(?:i|we)\s+(?:would\s+)?(?:love|like|prefer|appreciate)\s+it|(?:i|we)\s+(?:would\s+)?be\s+(?:\w+\s+)?(?:grateful|glad|happy|thankful|pleased)|it\s+would\s+be\s+(?:\w+\s+)?\w+|make\s+sure|ensure|see\s+to\s+it)\s+(?:if\s+|that\s+)?(.+?)\s+(?:were|was|is|are|ended\s+up|ends?\s+up|gets?|got|stays?|(?:could|would|can)\s+(?:go|be(?:\s+(?:put|placed|moved|stored|kept|taken|brought))?))\s+((?:back\s+)?(?:in|into|inside|on|onto|to)\b.*)$/i;
/** "The yellow block you must put inside the cabinet": the thing said before the order. */
const FRONTED =
  /^((?:the|a|an|my|this|that)\s+.+?)(?:\s+you\s+(?:must|should|need\s+to|have\s+to|can|will)|,\s+you)\s+([a-z]+)\b(.*)$/i;
/**
 * Where a thing is, said inside its phrase ("the blue mug that's sitting in the sink should go …"), and where a person
 * will see it after its destination ("on the table where I'll see them"): neither says more of what to do.
 */
function dropRelative(clause: string): string {
  const inside = clause.replace(
    /\s+(?:that|which)\s+(?:is|are|was|were)\s+(?:(?:sitting|lying|kept|stored|currently|now|still)\s+)*(?:in|on|inside|at)\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?(?=\s+(?:should|must|needs?|has|have|ought|can|goes|go|belongs?|is|are|to)\b)/i,
    "",
  );
  return /\b(?:in|into|inside|on|onto|to)\s+(?:the|a|an|my|our|your|this|that)\s+\S/i.test(inside)
    ? inside.replace(/\s+where\s+(?:i|we|you|they|he|she|it|the\s+\w+|my\s+\w+|nobody|no\s+one)\b.*$/i, "")
    : inside;
}
/** "I'm looking for my cup": a search, said of oneself. */
const LOOKING =
  /^(?!.*\b(?:lost|mislaid|misplaced|find|see|spot|for)\s+(?:it|them|both|everything|all)\b)(?:(?:i\s+am|we\s+are)\s+(?:looking|searching|hunting)\s+for|(?:i|we)\s+(?:search|look\s+for|seek)|(?:i\s+)?need\s+eyes\s+on|(?:i|we)\s+(?:have\s+|seem\s+to\s+have\s+)?(?:lost|misplaced|mislaid)|(?:i|we)\s+(?:can\s+not|cannot|could\s+not|do\s+not|did\s+not|not)\s+(?:find|see|spot))\s+(.+?)(?:\s+(?:somewhere|anywhere)\b.*)?$/i;
/** "I need the stone cabinet open(ed)": a wish for a thing to be open. */
const OPEN_WISH = /^(?:(?:i|we)\s+(?:\w+\s+)?)?(?:need|want|would\s+like|like)\s+(.+?)\s+(?:open|opened|unlocked)$/i;
/** Politeness or timing said as a clause of its own, asking nothing. */
const POLITE_CLAUSE =
  /^(?:if\s+(?:it\s+is\s+not|it's\s+not|that\s+is\s+not)\s+(?:too\s+much\s+)?(?:trouble|a\s+problem|too\s+much\s+to\s+ask)|if\s+possible|if\s+you\s+(?:do\s+not|don't)\s+mind|if\s+you\s+(?:can|could|would|please)|when\s+you\s+(?:can|get\s+a\s+chance|have\s+a\s+(?:moment|minute|second))|(?:before|after)\s+(?:you\s+)?(?:do|doing)\s+anything(?:\s+else)?|(?:there\s+is\s+)?no\s+(?:need|hurry|rush)\b.*|(?:there\s+is\s+)?no\s+rush|whenever\s+you\s+can|while\s+you\s+are\s+at\s+it|(?:and\s+)?while\s+you\s+are\s+there|nothing\s+(?:clever|fancy|else)|take\s+your\s+time|bless\s+(?:him|her|them|you)|if\s+(?:that|it)\s+is\s+(?:all\s+right|alright|ok(?:ay)?|fine))$/i;
/** "You'll have to …", "you need to …": what must be done, said to the robot. */
const MUST = /^(?:you\s+(?:will\s+|would\s+|might\s+|may\s+)?)?(?:have|need)\s+to\s+(.+)$/i;
/** "Take a look", "have a quick look around": looking, with nothing more said. */
const A_LOOK = /^(?:have|take)\s+a\s+(?:quick\s+|good\s+|close\s+)?look(?:\s+around)?$/i;
/** The thing of "the bread too" (a thing's phrase alone, not "the sponge can go in there as well"). */
const moreOf = (part: string) => {
  const match = TOO.exec(part.trim());
  return match && objectOf(match[1]) === match[1].trim() ? match : null;
};
/** "It's the apple that goes in the sink": that thing, there. */
const CLEFT =
  /^it\s+is\s+((?:the|a|my)\s+.+?)\s+(?:that|which)\s+(?:goes|should\s+go|needs\s+to\s+go|belongs)\s+(.+)$/i;
/** "Sponge put on the table": the thing, then the order (said so by someone whose language puts the verb last). */
const OBJECT_FIRST =
  /^((?:the\s+|my\s+)?(?!(?:i|we|you|they|he|she|it|please|just|then)\s)[a-z]+)\s+(put|place|bring|take|move)\s+((?:on|in|into|onto|to|inside)\s.*)$/i;
/** "Put on the table": an order that says where but not what. */
const BARE_PUT = /^(?:put|place|set|move|bring|take|stick|pop|leave)\s+(?:on|in|into|onto|to|inside)\s/i;
/** "The goal is still the yellow cube inside the cabinet": how things are to end up, said as the goal. */
const GOAL_IS =
  /^(?:the\s+)?(?:goal|aim|target|task|job|idea|point)\s+is\s+(?:still\s+|now\s+|just\s+|simply\s+)?(?:to\s+(?:get|have|put)\s+)?((?:the|a|an|my)\s+.+?)\s+((?:inside|in|into|on|onto|on\s+top\s+of)\s+.+)$/i;
/** A container's parts, said for the container ("the cabinet doors", "the fridge handle"). */
const DOORS = /\s+(?:doors?|handles?|lids?)$/i;
/** "Somewhere around here there's a blue cube", "there's a cup hidden somewhere": a thing to be found. */
const SOMEWHERE =
  /^(?:somewhere|hidden)\s+(?:around\s+here\s+|in\s+here\s+|around\s+)?there\s+is\s+(.+)$|^(?:there\s+is|(?:i\s+think\s+)?i\s+(?:saw|left|put|had)|(?:i|we)\s+(?:still\s+)?have)\s+(.+?)\s+(?:hidden\s+)?somewhere\b.*$|^(?:do|did)\s+(?:we|you|i)\s+(?:still\s+)?have\s+(?:any\s+)?(.+?)(?:\s+(?:left|anywhere|somewhere|still))?(?:\s+or\s+.*)?$/i;
/** "The bread too", "and the orange as well": one more thing for the order before. */
const TOO = /^(?:and\s+)?(?:also\s+)?((?:the|a|an|my|some|this|that)\s+[a-z ]+?)\s*,?\s+(?:too|as\s+well|also)$/i;
/** How a person corrects what they just said: "no wait, …", "sorry, I mean …", "actually, make that …". */
const CORRECTION =
  /^(?:(?:(?:sorry,?\s+)?(?:no,?\s+wait|wait|oops|correction|no(?=\s*,))\b[\s,!.]*)+(?:i\s+mean[t]?\b[\s,:]*)?|(?:(?:sorry|actually|no),?\s+)?(?:i\s+mean[t]?\b[\s,:]*|make\s+(?:that|it)\s+))/i;
/** Words that start a phrase naming a thing ("the", "a", "my", "their", …). */
const DETERMINER = /^(?:the|a|an|this|that|these|those|my|your|our|his|her|their)$/;
/** Why the order is given ("because it tastes better cold"): asks nothing more. */
const REASON = /,?\s+(?:because|since|cause)\s+.+$/i;
/** When, by another's clock ("before my guests arrive", "when you're done"): the order is the same. */
const WHILE =
  /,?\s+(?:before|after|when|while|until|once|by\s+the\s+time)\s+(?:i|we|you|he|she|they|it|the|my|your|our|their|everyone|someone|people|guests)\b.+$/i;
/** Where a purpose starts: what the order is for, which asks nothing more of the robot. */
const PURPOSE =
  /,?\s+(?:so\s+that|so(?=\s+(?:it|they|i|we|you|he|she|that|my|our|your|his|her|their|nobody|no\s+one|everyone|someone)\b)|in\s+order\s+to|to\s+(?:keep|stay|make|let|help|cool|warm|heat|chill|thaw|defrost|soften|dry|toast|stop|prevent|avoid))\b.*$/i;

/** The words of one order said plainly (unchanged where the sentence is built in no way known here). */
function restateClause(clause: string): string {
  const wish = WISH.exec(
    clause
      .trim()
      .replace(/[.;:!?,]+$/, "")
      .replace(/^(?:please|kindly|just)\s+/i, "")
      .replace(TRAILING, ""),
  );
  if (wish) {
    // "… if the burger could be put in the fridge and the bread heated in the oven": a second thing, its own verb.
    const second =
      /^(.*?)\s+and\s+((?:the|a|an|my|some)\s+[a-z ]+?)\s+([a-z]+)\s+((?:in|into|on|onto|inside)\b.*)$/i.exec(wish[2]);
    if (second && (/(?:ed|en)$/i.test(second[3]) || isVerb(termsOf(`it was ${second[3]}`)[2])))
      return `put ${wish[1]} ${second[1]}. ${plainVerb(infinitive(second[3]))} ${second[2]} ${second[4]}`;
    return `put ${wish[1]} ${wish[2]}`;
  }
  let cleaned = clause
    .trim()
    .replace(/[.;:!?,]+$/, "")
    .replace(POLITE, "")
    .replace(TRAILING, "");
  // Thanks, "mind", or a lead alone ("After that."): nothing asked.
  if (
    /^(?:thanks?|thank\s+you|cheers|ta|much\s+appreciated)\b[^,]*$/i.test(cleaned) ||
    new RegExp(`^(?:mind|after\\s+that|afterwards|then|next|${ADDRESS})$`, "i").test(cleaned)
  )
    return "";
  // "Just as it is", "nothing clever": how, which asks nothing more. "Two jobs, in this order": a heading.
  if (
    /^(?:just\s+)?as\s+(?:it|they)\s+(?:is|are)\b/i.test(cleaned) ||
    /^(?:\w+\s+)?(?:jobs?|things?|tasks?|steps?|requests?)(?:\s+for\s+you)?(?:,?\s+in\s+(?:this|that)\s+order)?$/i.test(
      cleaned,
    )
  )
    return "";
  // "Just to keep it out of the way": what it is for, said alone.
  if (
    /^(?:just\s+)?(?:to|so\s+(?:that|it|they))\s+(?:keep|stay|make|let|help|stop|prevent|avoid)\b/i.test(cleaned) ||
    /^(?:i\s+)?(?:just\s+)?(?:need|want)\s+to\s+know$/i.test(cleaned)
  )
    return "";
  // "It's the apple that goes in the sink": put it there.
  const cleft = CLEFT.exec(cleaned);
  if (cleft) return `put ${cleft[1]} ${cleft[2]}`;
  // "Probably in the microwave or the cupboard": a hint where it is, for the search already asked.
  if (
    /^(?:probably|maybe|perhaps|possibly|likely)\s+(?:it\s+is\s+|they\s+are\s+)?(?:in|on|inside|under|behind|at)\b/i.test(
      cleaned,
    )
  )
    return "";
  // "No move it", "don't touch them": what not to do, asking nothing.
  if (/^(?:no|not|never)\s+(?:move|touch|bring|take)\b/i.test(cleaned)) return "";
  cleaned = dropYouFrame(cleaned).replace(POLITE, "");
  // "Leave it there", "leave them where they are": nothing more to do with them.
  if (
    /^leave\s+(?:it|them|everything|all|the\s+rest|(?:the|my|that|this)\s+[a-z ]+?)\s+(?:alone|be|there|where\s+(?:it|they)\s+(?:is|are)|as\s+(?:it|they)\s+(?:is|are))$/i.test(
      cleaned,
    )
  )
    return "";
  cleaned = dropRelative(cleaned);
  // Politeness said as a clause of its own ("if it's not too much trouble", "before you do anything else").
  if (POLITE_CLAUSE.test(cleaned)) return "";
  // "To move the medicine …": the order said with "to" before it.
  if (/^to\s+/i.test(cleaned) && startsOrder(cleaned.replace(/^to\s+/i, ""))) cleaned = cleaned.replace(/^to\s+/i, "");
  const goal = GOAL_IS.exec(cleaned);
  if (goal) return `put ${goal[1]} ${goal[2]}`;
  // "Set the yellow cube down inside the cabinet": "down" says no more of where.
  cleaned = cleaned.replace(/^((?:set|put|place|lay|sit)\s+.+?)\s+down\s+(?=(?:in|into|on|onto|inside)\b)/i, "$1 ");
  // "That little blue cup in the sink, could I have it on the table?": the thing said first, then "it" in the order.
  const dislocated = /^((?:the|that|this|my|a)\s+[^,]+),\s+(.*\b(?:it|them)\b.*)$/i.exec(cleaned);
  if (dislocated && !startsOrder(dislocated[1]))
    cleaned = dislocated[2].replace(
      /\b(?:it|them)\b/i,
      dislocated[1].replace(/\s+(?:in|on|from|by)\s+(?:the\s+)?\w+$/i, ""),
    );
  // "(Please) you put the apple …": the order, said to "you".
  if (/^you\s+/i.test(cleaned) && startsOrder(cleaned.replace(/^you\s+/i, "")))
    cleaned = cleaned.replace(/^you\s+/i, "");
  // "I need the stone cabinet open(ed)": open it.
  const openWish = OPEN_WISH.exec(cleaned);
  if (openWish) return `open ${openWish[1]}`;
  // "Swap the yellow cube on the crate for the red one": the second thing goes where the first is.
  const swap = /^(?:swap|replace|exchange|switch)\s+(.+?)\s+(?:on|in|inside)\s+(.+?)\s+(?:for|with)\s+(.+)$/i.exec(
    cleaned,
  );
  if (swap) {
    const one = /^(the|a)\s+(\w+)\s+one$/i.exec(swap[3]);
    return `put ${one ? `${one[1]} ${one[2]} ${swap[1].split(/\s+/).at(-1)}` : swap[3]} on ${swap[2]}`;
  }
  // "The yellow block you must put inside the cabinet": the thing said first.
  const fronted = FRONTED.exec(cleaned);
  if (fronted && isVerb(termsOf(`you ${fronted[2]}`)[1])) cleaned = `${fronted[2]} ${fronted[1]}${fronted[3]}`;
  cleaned = cleaned.replace(/^open\s+up\b/i, "open").replace(/^open\s+(.+?)\s+up$/i, "open $1");
  // "Sponge put on the table": said as an order.
  const first = OBJECT_FIRST.exec(cleaned);
  if (first) cleaned = `${first[2]} ${first[1]} ${first[3]}`;
  // "Load the weight sensor with the red cube": put the cube on it.
  const load = /^load\s+((?:the|a|my)\s+.+?)\s+with\s+((?:the|a|my)\s+.+?)(\s+(?:to|so)\s+.*)?$/i.exec(cleaned);
  if (load) cleaned = `put ${load[2]} on ${load[1]}${load[3] ?? ""}`;
  // "Put the hamburger also to the trash": the adverb says no more of where.
  cleaned = cleaned.replace(/\s+(?:also|too|as\s+well)\s+(?=(?:to|in|into|on|onto|inside)\s)/i, " ");
  // "I'm looking for my cup": find it. "Have a look for the sponge": look for it.
  const looking = LOOKING.exec(cleaned);
  if (looking) return `find ${looking[1]}`;
  cleaned = cleaned.replace(
    /^(?:have|take)\s+a\s+(?:quick\s+|good\s+|close\s+)?look\s+(?:around\s+)?for\b/i,
    "look for",
  );
  // "Make the cup go to the sink": put it there.
  const go = /^(?:make|let|have)\s+(.+?)\s+go\s+((?:back\s+)?(?:in|into|on|onto|to|inside)\b.*)$/i.exec(cleaned);
  if (go) return `put ${go[1]} ${go[2]}`;
  // "Can the milk go in the fridge?": asked as a question, the same order.
  const can =
    /^(?:can|could|would|will)\s+((?:the|a|an|my|our|this|that)\s+.+?)\s+(?:go|be\s+put|be\s+placed|be\s+moved|be\s+stored)\s+((?:back\s+)?(?:in|into|on|onto|inside|to)\b.*)$/i.exec(
      cleaned,
    );
  if (can) return `put ${can[1]} ${can[2]}`;
  // "Can I have the bread on the table?": put it there.
  const have =
    /^(?:can|could|may)\s+(?:i|we)\s+(?:have|get)\s+((?:the|a|an|my|our|some|this|that)\s+.+?|it|them)\s+((?:in|into|on|onto|inside)\b.*)$/i.exec(
      cleaned,
    );
  if (have) return `put ${have[1]} ${have[2]}`;
  // "You'll have to open a door first": a step on the way, which the robot takes as it needs; without "first", the order.
  const must = MUST.exec(cleaned);
  if (must) {
    if (/\s+first$/i.test(must[1])) return "";
    cleaned = must[1];
  }
  const seen = SEEN.exec(cleaned);
  if (seen) return `find ${seen[1]}`;
  // "Is the milk in the fridge?": asking where it is asks for it to be found.
  const is =
    /^(?:is|are)\s+(?:there\s+)?((?:the|a|an|my|any|some)\s+.+?)\s+(?:in|on|inside|at|anywhere|around|somewhere|left)\b/i.exec(
      cleaned,
    );
  if (is) return `find ${is[1]}`;
  // "Help me tidy up by moving the cup to the sink"; "get rid of the tea by putting it in the bin": the means is the
  // order, and "it" in it is the thing the first part names.
  const by = /^(.*?)\s+by\s+([a-z]+ing)\b(.*)$/i.exec(cleaned);
  // The library may tag the gerund a noun ("by moving the cup"): a word in -ing that takes an object is a verb.
  const byTerms = termsOf(cleaned);
  const gerundAt = by ? byTerms.findIndex((t) => t.word === by[2].toLowerCase()) : -1;
  const object = (t?: Term) => !!t && (t.tags.has("Determiner") || t.tags.has("Pronoun") || t.tags.has("Possessive"));
  if (by && gerundAt >= 0 && (byTerms[gerundAt].tags.has("Verb") || object(byTerms[gerundAt + 1]))) {
    const thing = objectOf(by[1]);
    const rest = thing ? by[3].replace(/\b(?:it|them)\b/i, thing) : by[3];
    // "Unlock the cupboard by putting the cube on the plate": the means unlocks it; opening it is the order.
    cleaned =
      /^(?:unlock|open)\b/i.test(by[1]) && thing ? `open ${thing} by ${by[2]}${by[3]}` : `${infinitive(by[2])}${rest}`;
  }
  // "Into the oven with it!": put it there.
  const withIt = /^((?:in|into|onto|on|inside)\s+.+?)\s+with\s+(it|them|(?:the|a|an|my|that|this)\s+.+)$/i.exec(
    cleaned,
  );
  if (withIt) return `put ${withIt[2]} ${withIt[1]}`;
  // "In the middle drawer, not in the top one": the place it is not to go says no more.
  cleaned = cleaned.replace(/,?\s+(?:and\s+)?not\s+(?:in(?:to)?\s+|on(?:to)?\s+)?(?:the|a|my)\s+[a-z ]+$/i, "");
  // "… and the vitamin pills next to it": the same place.
  cleaned = cleaned.replace(/\s+(?:next\s+to|beside|alongside|near|by)\s+(?:it|them)$/i, " there");
  // "In the top drawer, next to the medicine": where in it, which says no more of where.
  if (/\b(?:in|into|inside|on|onto|to)\s+\S/i.test(cleaned))
    cleaned = cleaned.replace(
      /,?\s+(?:next\s+to|beside|near|by(?!\s+\w+ing\b)|behind|in\s+front\s+of|alongside|(?:together\s+)?with)\s+[^,]+$/i,
      "",
    );
  // "Track it down": the phrasal verb kept whole.
  cleaned = cleaned.replace(/^(track|hunt|seek)\s+(.+?)\s+(down|out)\b/i, "$1 $3 $2");
  // "Off the table and into the fridge": one way, from one place to another.
  cleaned = cleaned.replace(/\s+and\s+(?:over\s+|across\s+|back\s+)?(?=(?:in|into|onto|on|inside|to)\s)/i, " ");
  // "Check whether the apple is in the microwave": find it (where it is said to be is a hint, kept).
  const whether =
    /^(?:check|see|find\s+out|look|make\s+sure\s+you\s+know)\s+(?:whether|if)\s+(.+?)\s+(?:is|are)\b(.*)$/i.exec(
      cleaned,
    );
  if (whether) return `find ${whether[1]}`;
  // "Check whether we've still got milk somewhere": find it.
  const still =
    /^(?:check|see|find\s+out|look)\s+(?:whether|if)\s+(?:we|you|i)\s+(?:still\s+)?(?:have|has)\s+(?:still\s+)?(?:got\s+)?(?:any\s+)?(.+?)(?:\s+(?:somewhere|anywhere|left|around|in\s+the\s+\w+)\b.*)?$/i.exec(
      cleaned,
    );
  if (still) return `find ${still[1]}`;
  // "Just have a look": the search already asked for.
  if (A_LOOK.test(cleaned)) return "";
  // "Find me the apple", "bring us the milk": for whom says nothing of what.
  cleaned = cleaned.replace(
    /^(find|fetch|get|grab|bring|locate|hand)\s+(?:me|us)\s+(?=(?:the|a|an|my|our|some|this|that|those|these)\b)/i,
    "$1 ",
  );
  const where = whereQuestion(cleaned);
  if (where) return where;
  // "Before breakfast", "by tonight": when, which says no more of what.
  cleaned = cleaned.replace(
    /\s+(?:before|after|by|until|for)\s+(?:breakfast|lunch|dinner|supper|teatime|bedtime|bed|tonight|tomorrow|noon|midday|later|the\s+(?:morning|evening|weekend))\b/gi,
    "",
  );
  // "…, after you put the milk on the table": that is an order too (the goals say where things end up, not in what order).
  const before = /,?\s+after\s+you\s+(.+)$/i.exec(cleaned);
  if (before && startsOrder(before[1]) && TARGET.test(before[1]))
    return `${restateClause(cleaned.slice(0, before.index))}. ${restateClause(before[1])}`;
  cleaned = dropFor((purposePlace(cleaned) ?? cleaned).replace(PURPOSE, "").replace(REASON, "").replace(WHILE, ""));
  // "Get the cabinet open": open it.
  cleaned = cleaned.replace(/^(?:get|make|have)\s+(.+?)\s+open\b/i, "open $1");
  // "Stored away in the cabinet": "away" before where says nothing more.
  cleaned = cleaned.replace(/\s+away\s+(?=(?:in|into|inside|on|onto)\b)/i, " ");
  cleaned = cleaned.replace(POLITE, "");
  const terms = termsOf(cleaned);
  if (!terms.length) return cleaned;
  // "(would you) mind throwing the medication …", "try putting …": the gerund is the order.
  const gerund = /^(?:mind|try|start|begin)\s+([a-z]+ing)\b/i.exec(cleaned);
  if (gerund && terms[1]?.tags.has("Verb")) cleaned = `${infinitive(gerund[1])}${cleaned.slice(gerund[0].length)}`;
  // "search the kitchen for the bread": find the bread.
  const search = /^(?:search|look\s+through|look\s+around|check|scan)\s+(?!for\b)(.+?)\s+for\s+(.+)$/i.exec(cleaned);
  if (search) return `find ${search[2]}`;
  const said = passive(cleaned) ?? terse(cleaned) ?? cleaned;
  // "Go look", "have a look around for me": looking, with nothing more said than the search already asked for.
  return /^(?:go\s+)?(?:look|search|check)(?:\s+around)?$/i.test(said) ? "" : said;
}

/** Verbs that start an order, never a thing's name ("put in the oven" is no terse "put → oven"). */
const ORDER_VERB =
  /^(?:put|place|set|move|take|bring|get|go|come|throw|toss|pop|stick|leave|drop|hand|carry|slide|shove|back|away|off|out|over|up|down)$/i;
/** "Tea to the table", "the burger into the oven!": no verb, a thing and where it goes — the order to put it there. */
function terse(clause: string): string | undefined {
  const match =
    /^((?:the\s+|a\s+|an\s+|my\s+|some\s+)?[a-z][a-z\s]*?)\s*(?:->|→|\s(?:to|into|in|onto|on|inside))\s+(.+)$/i.exec(
      clause,
    );
  // A word after an adjective is its noun, whatever the library tags it ("yellow cube into …").
  const terms = termsOf(clause);
  // "Milk to table": a first word the library takes for a verb is the thing, when "to" follows it.
  if (
    !match ||
    terms.some(
      (term, i) =>
        (isVerb(term) &&
          !["Adjective", "Preposition", "Determiner"].some((tag) => terms[i - 1]?.tags.has(tag)) &&
          !(i === 0 && /^(?:to|into|in|on|onto)$/.test(terms[1]?.word ?? "") && !ORDER_VERB.test(term.word))) ||
        term.tags.has("Copula"),
    )
  )
    return undefined;
  return `put ${match[1].trim()} to ${match[2].replace(/^(?:the\s+)?/i, "the ")}`;
}

/**
 * A sentence whose thing comes first, said as an order: "the milk should be put back in the fridge" → "put the milk
 * back in the fridge"; "I want the vitamins thrown away" → "throw the vitamins away"; "the bread needs to go in the
 * drawer" → "put the bread in the drawer". Undefined for a sentence that starts with its verb.
 */
function passive(clause: string): string | undefined {
  const terms = termsOf(clause);
  // The frame before the thing: "I want", "I need", "I'd like", "have", "get".
  let start = 0;
  // "I like my coffee in a chilled mug" says what one likes; "I'd like the cup in the fridge" asks for it.
  const framed =
    /^(?:(?:i|we)\s+(?:(?:would|will|do|really|also|still|just|only)\s+)*(?:want|need|like|love|prefer|expect)|(?:i|we)\s+(?:am|are)\s+(?:needing|wanting)|have|get)\s+/i.exec(
      clause,
    );
  const frame =
    framed && /\b(?:like|love|prefer)\s+$/i.test(framed[0]) && !/\bwould\b/i.test(framed[0]) ? null : framed;
  if (framed && !frame) return undefined;
  // "I want / I'd like the cup …" wishes; "have / get the cup washed" only with a participle after the thing.
  const wanting = !!frame && !/^(?:have|get)\s/i.test(frame[0]);
  if (frame) start = termsOf(frame[0]).length;
  else if (isVerb(terms[0]) && !terms[0].tags.has("Determiner")) return undefined;
  // The thing: from its determiner up to the verb that says what becomes of it.
  // "It should go in the fridge", "it belongs on the table": "it" may be the thing when what it must become follows.
  const pronounThing =
    /^(?:it|they)$/.test(terms[start]?.word ?? "") &&
    (/^(?:should|must|needs|ought|belongs|belong|goes)$/.test(terms[start + 1]?.word ?? "") ||
      (/^(?:has|have|need)$/.test(terms[start + 1]?.word ?? "") && terms[start + 2]?.word === "to"));
  if (
    !terms[start] ||
    !(
      terms[start].tags.has("Determiner") ||
      terms[start].tags.has("Noun") ||
      (terms[start].tags.has("Adjective") && terms[start + 1]?.tags.has("Noun"))
    ) ||
    (terms[start].tags.has("Pronoun") && !pronounThing && !(wanting && /^(?:it|them)$/.test(terms[start].word)))
  )
    return undefined;
  let end = start + 1;
  // "Goes", "belongs": the library may tag them nouns after a colour ("the orange goes in the bin").
  const GOES = /^(?:goes|belongs|go|belong)$/;
  while (
    end < terms.length &&
    !isVerb(terms[end]) &&
    !/^(?:both|all|should|must|needs?|has|have|ought|is|are|to|be|will|can)$/.test(terms[end].word) &&
    !(end > start && GOES.test(terms[end].word))
  )
    end++;
  // "I'd like the milk on the table": after a frame of wanting, where the thing is to be, with no verb.
  const where = frame ? terms.slice(start + 1, end).findIndex((t) => LOCATION.test(t.word) || t.word === "there") : -1;
  if (where >= 0)
    return `put ${terms
      .slice(start, start + 1 + where)
      .map((t) => t.text)
      .join(" ")} ${terms
      .slice(start + 1 + where)
      .map((t) => t.text)
      .join(" ")}`;
  // "They" said as the thing an order is about is "them" ("put them in the fridge"), for the reader to say what it stands for.
  const phrase = terms
    .slice(start, end)
    .map((t) => t.text)
    .join(" ")
    .replace(/^\w/, (x) => x.toLowerCase())
    .replace(/^they$/, "them");
  // "Bread should be kept in the fridge": the bread, said with its article, for "it" to stand for later.
  const thing =
    terms[start].tags.has("Determiner") || terms[start].tags.has("Pronoun") || terms[start].tags.has("Possessive")
      ? phrase
      : `the ${phrase}`;
  let i = end;
  let be = wanting;
  // Asked for, not told: a frame of wanting, or "should", "must", "needs (to)", "has to", "is to", "will", "can".
  let asked = !!frame;
  for (
    ;
    i < terms.length &&
    /^(?:both|all|should|must|needs?|has|have|ought|is|are|to|be|been|will|can|gets?)$/.test(terms[i].word);
    i++
  ) {
    be ||= /^(?:is|are|be|been|gets?)$/.test(terms[i].word);
    asked ||= /^(?:should|must|needs?|ought|to|will|can)$/.test(terms[i].word);
  }
  const verb = terms[i];
  // "Doesn't belong in the sink", "should never go": what is not to be, which asks for nothing.
  if (terms.slice(start, i + 1).some((t) => /^(?:not|never|n't)$/.test(t.word) || t.tags.has("Negative")))
    return undefined;
  // "I'd like the red cube to be on the crate", "the milk should be in the fridge": where it is to be.
  if (verb && be && asked && LOCATION.test(verb.word))
    return `put ${thing} ${terms
      .slice(i)
      .map((t) => t.text)
      .join(" ")}`;
  // "Is going stale" says how it is; "needs throwing away" (said after "need") is what is to be done with it — the
  // library may tag that word a noun ("needs opening").
  const needs = /^needs?$/.test(terms[i - 1]?.word ?? "");
  if (!verb || !(verb.tags.has("Verb") || GOES.test(verb.word) || (needs && /ing$/.test(verb.word)))) return undefined;
  // "I want the red cube sitting on the crate": where it is to be, said with how it rests there.
  if (wanting && /^(?:sitting|resting|standing|lying)$/.test(verb.word) && LOCATION.test(terms[i + 1]?.word ?? ""))
    return `put ${thing} ${terms
      .slice(i + 1)
      .map((t) => t.text)
      .join(" ")}`;
  if (verb.tags.has("Gerund") && !needs) return undefined;
  be ||= needs;
  const rest = terms
    .slice(i + 1)
    .map((t) => t.text)
    .join(" ");
  // "goes in", "ends up in", "is in": where it is to be.
  // "They ought to live in the fridge", "it should stay on the table": where it is to be kept.
  if (
    /^(?:go|goes|end|ends|be|belong|belongs)$/.test(verb.word) ||
    (asked && /^(?:live|stay|sit|remain|come)$/.test(verb.word))
  ) {
    const after = rest.replace(/^(?:up|back|out)\s+/i, "");
    return TARGET.test(after.split(/\s+/)[0] ?? "") ? `put ${thing} ${after}` : undefined;
  }
  // After "be" any verb is its participle ("should be put back"); without it, only a participle is ("thrown away").
  if (!(be || verb.tags.has("PastTense") || verb.tags.has("Participle"))) return undefined;
  // "The cup is chipped", "the vitamins expired", "the orange has gone moldy": how things are, not what to do.
  if (!asked) return undefined;
  const said = (participle: string, words: Term[]) => {
    const base = infinitive(participle);
    // "Disposed of in the bin": the verb keeps its "of" ("dispose of the burger in the bin").
    const of = words[0]?.word === "of" ? " of" : "";
    const rest = words
      .slice(of ? 1 : 0)
      .map((t) => t.text)
      .join(" ");
    return `${plainVerb(base)}${of} ${thing}${rest ? ` ${rest}` : ""}`;
  };
  // "… taken out of the fridge and left on the table": a second participle after "and" says more of the same thing.
  const after = terms.slice(i + 1);
  for (let j = 0; j < after.length; j++) {
    if (after[j].word !== "and") continue;
    let k = j + 1;
    while (k < after.length && (isAdverb(after[k]) || after[k].word === "then")) k++;
    const next = after[k];
    // Any verb after "and" goes on saying what becomes of the same thing ("… and put on the table"; "… and then
    // placed in the sink"), said of "it" so that picking it up first folds into the second order.
    if (next && isVerb(next) && !next.tags.has("Gerund") && !next.tags.has("Noun")) {
      const base = infinitive(next.word);
      const rest = after
        .slice(k + 1)
        .map((t) => t.text)
        .join(" ");
      return `${said(verb.word, after.slice(0, j))}. ${plainVerb(base)} it${rest ? ` ${rest}` : ""}`;
    }
  }
  return said(verb.word, after);
}

/**
 * The thing a part names after its verb ("get rid of the tea bottle" → "the tea bottle"; "keep the apple cool" → "the
 * apple"; "the loaf of bread" whole), for "it" to stand for: from a determiner through its adjectives and nouns (and
 * "of" between nouns), up to the first word that is neither — or an adjective after the noun, which says how the
 * thing is to be kept, not which.
 */
function objectOf(part: string): string | undefined {
  const terms = termsOf(part);
  const from = terms.findIndex((t) => DETERMINER.test(t.word) || /^(?:any|some)$/.test(t.word));
  if (from < 0) return undefined;
  let to = from + 1;
  let noun = false;
  for (; to < terms.length; to++) {
    const term = terms[to];
    if (terms[to - 1].stop) break;
    if (
      term.word === "of" &&
      noun &&
      terms[to + 1] &&
      (terms[to + 1].tags.has("Noun") || terms[to + 1].tags.has("Determiner"))
    ) {
      noun = false;
      continue;
    }
    // "That iced tea", "the chipped cup": a participle before the noun describes it.
    const describing =
      !noun &&
      isVerb(term) &&
      (term.tags.has("PastTense") || term.tags.has("Participle")) &&
      !!terms[to + 1]?.tags.has("Noun");
    if (
      term.tags.has("Preposition") ||
      term.tags.has("Conjunction") ||
      term.tags.has("Pronoun") ||
      (isVerb(term) && !term.tags.has("Noun") && !term.tags.has("Adjective") && !describing)
    )
      break;
    if (describing) continue;
    // "The burger needs heating", "the orange has gone": verbs the library may tag nouns.
    if (
      (noun && !term.tags.has("Noun")) ||
      /^(?:needs|wants|has|have|had|is|are|was|were|goes|belongs)$/.test(term.word)
    )
      break;
    if (term.tags.has("Noun")) noun = true;
    else if (!term.tags.has("Adjective") && !term.tags.has("Value") && !term.tags.has("Determiner")) break;
  }
  return to > from + 1
    ? terms
        .slice(from, to)
        .map((t) => t.text)
        .join(" ")
    : undefined;
}

/** Whether a part starts another order ("and then drop it …"), by the library's tag on its first word. */
const startsOrder = (text: string) => {
  const terms = termsOf(text);
  const at = terms.findIndex((t) => !isAdverb(t));
  const first = terms[at];
  // Alone, a verb may be taken for a noun ("stash the bread"): a bare noun with a thing after it stands where a verb does.
  const object =
    terms[at + 1]?.tags.has("Determiner") ||
    terms[at + 1]?.tags.has("Possessive") ||
    /^(?:it|them)$/.test(terms[at + 1]?.word ?? "");
  const nounAsVerb =
    !!first &&
    first.tags.has("Noun") &&
    !first.tags.has("Pronoun") &&
    !first.tags.has("Determiner") &&
    at === 0 &&
    object;
  if (!first) return false;
  if ((isVerb(first) && !first.tags.has("Gerund") && !first.tags.has("PastTense")) || nounAsVerb) return true;
  // Said after "please", a word the library took for a noun may read as the order it is ("check whether …").
  if (!first.tags.has("Noun") || first.tags.has("Pronoun") || at !== 0) return false;
  const asked = termsOf(`please ${text}`)[1];
  return !!asked && isVerb(asked) && asked.tags.has("Imperative");
};

/** What a phrase names in the world: one of its things, one of its places, or nothing it knows. */
export type Knows = (phrase: string) => "object" | "place" | false;

/** Instructions already said again: every node of every step reads the instruction anew, and parsing takes milliseconds. */
const said = new Map<string, string>();

/**
 * The instruction said again as plain orders, one per sentence, in the reader's verbs where the library knows the
 * word's infinitive; a part built in no way known here is kept as written, for the reader to name what it cannot read.
 */
export function restate(text: string, knows?: Knows): string {
  const cache = knows ? (saidFor.get(knows) ?? saidFor.set(knows, new Map()).get(knows)!) : said;
  const known = cache.get(text);
  if (known !== undefined) return known;
  const plain = restateSentences(text, knows);
  if (cache.size >= 64) cache.delete(cache.keys().next().value!);
  cache.set(text, plain);
  return plain;
}
/** Restatements where a world says which phrases name its things (by the world's lexicon). */
const saidFor = new WeakMap<Knows, Map<string, string>>();

/** A phrase that names a thing, where it stands in its clause: for "it" and "them" to stand for. */
interface Mention {
  text: string;
  plural: boolean;
  /** After a preposition ("in the microwave"): a place named, less likely what "it" means than a subject or an object. */
  placed: boolean;
}

/** Every phrase of a clause that names a thing ("the green apple", "the microwave"), in order. */
function mentionsOf(clause: string): Mention[] {
  const terms = termsOf(clause);
  const out: Mention[] = [];
  for (let i = 0; i < terms.length; i++) {
    if (!DETERMINER.test(terms[i].word)) continue;
    const text = objectOf(
      terms
        .slice(i)
        .map((t) => t.text + (t.stop ? "," : ""))
        .join(" "),
    );
    if (!text) continue;
    const textTerms = termsOf(text);
    out.push({
      text,
      plural:
        textTerms.some((t) => t.tags.has("Plural")) &&
        !textTerms.some((t) => t.tags.has("Singular") && t === textTerms[textTerms.length - 1]),
      placed: i > 0 && terms[i - 1].tags.has("Preposition"),
    });
    i += textTerms.length - 1;
  }
  // A thing said without an article at the start ("Oranges taste better cold", "milk's expired, the date says …"): the
  // thing, for "the one" and "it".
  if (
    terms[0]?.tags.has("Noun") &&
    !terms[0].tags.has("Pronoun") &&
    !DETERMINER.test(terms[0].word) &&
    (terms.length > 4 || isVerb(terms[1]) || !!terms[1]?.tags.has("Copula"))
  ) {
    out.unshift({ text: `the ${terms[0].text}`, plural: terms[0].tags.has("Plural"), placed: false });
  }
  // "Wooden cabinet door is shut": the thing, described, without its article.
  if (!out.length && terms[0]?.tags.has("Adjective") && terms[1]?.tags.has("Noun")) {
    const text = objectOf(`the ${clause}`);
    if (text) out.push({ text, plural: termsOf(text).at(-1)!.tags.has("Plural"), placed: false });
  }
  // A thing named alone, without an article ("Blue cube — find it").
  if (
    !out.length &&
    terms.length &&
    terms.length <= 4 &&
    terms.every((t) => (t.tags.has("Noun") || t.tags.has("Adjective")) && !t.tags.has("Pronoun"))
  ) {
    out.push({
      text: `the ${terms.map((t) => t.text).join(" ")}`,
      plural: terms.at(-1)!.tags.has("Plural"),
      placed: false,
    });
  }
  return out;
}

/** What "it" (or "them") stands for among the things named last: the same number, a thing before a place. */
function referent(pronoun: string, named: Mention[], knows?: Knows, asPlace = false): string | undefined {
  const plural = /^(?:them|they)$/i.test(pronoun);
  // A thing of the world before a person or anything else ("my grandson … the hamburger … where it is").
  const things = knows ? named.filter((m) => knows(m.text)) : [];
  // Not said where a place goes, a thing to handle before a place ("such a waste. Throw it out": not the trash).
  const objects = asPlace || !knows ? [] : things.filter((m) => knows(m.text) === "object");
  const candidates = objects.length ? objects : things.length ? things : named;
  const agree = candidates.filter((m) => m.plural === plural);
  const pool = agree.length ? agree : candidates;
  // Said where a place goes ("rest the cube on it"), it is what was named last, a place as well as a thing.
  return (asPlace ? pool.at(-1) : (pool.filter((m) => !m.placed).at(-1) ?? pool.at(-1)))?.text;
}

/**
 * A clause that states how things are rather than asking anything ("it's falling apart"; "the doors are already
 * open"; "I can't remember where I put them"; "I think the apple might be in the microwave"): a subject that is not the
 * one addressed, then its verb. It asks nothing of the robot; the things it names may still be what "it" means next.
 */
function isStatement(clause: string): boolean {
  // "Since the oven is warm": the reason, said first.
  const whole = clause.trim().replace(/[.;:!?,]+$/, "");
  const core = whole.replace(
    /^(?:since|because|as|given\s+that|now\s+that|seeing\s+(?:as|that)|somewhere|apparently|actually|also|now|when|whenever|if|before|while|until|later|honestly|frankly|basically|well|oh|anyway|ugh|ok|okay|so|right|alright|heads\s+up|by\s+the\s+way|fyi)\s+/i,
    "",
  );
  // "If you see the milk, …", "when you get to the table, …": a condition or a time, said of "you".
  if (OBJECT_FIRST.test(core) || GOAL_IS.test(core) || CLEFT.test(core)) return false;
  // "Want to give it a look", "I want to wash it": what the speaker means to do.
  if (/^(?:(?:i|we)\s+)?(?:want|wanna|mean|plan|intend)\s+to\s+(?!know\b)/i.test(core) && !/\byou\b/i.test(core))
    return true;
  const subordinate = core !== whole && /^(?:when|whenever|if|before|while|until)\b/i.test(whole);
  if (subordinate && /^you\s+(?!(?:could|can|would|will|might|may)\b)/i.test(core)) return true;
  // "(I'm) done with the mug": said of oneself, for "it" to mean next.
  if (/^(?:(?:i\s+am|we\s+are)\s+)?(?:done|finished)\s+with\b/i.test(core)) return true;
  // "Yellow one is already on it", "yellow's in the way": a thing said by its colour, then how it is. "That's the
  // bruised one": which one was meant. "Going to wipe it down": what the speaker will do.
  if (
    /^(?:the\s+)?[a-z]+\s+(?:one\s+(?:is|was)|(?:is|was)\s+(?:in|on|already|still|not|too|so|very))\b/i.test(core) ||
    /^(?:that|it|this)\s+is\s+the\s+[a-z ]+$/i.test(core) ||
    /^going\s+to\b/i.test(core)
  )
    return true;
  // "Blue cube — find it": a thing named alone, for what follows to be about.
  const bare = termsOf(core);
  if (
    bare.length &&
    bare.length <= 4 &&
    bare.every(
      (t) => (t.tags.has("Noun") || t.tags.has("Adjective") || t.tags.has("Determiner")) && !t.tags.has("Pronoun"),
    ) &&
    passive(core) === undefined &&
    !startsOrder(core)
  )
    return true;
  // "Do we still have that bottle of tea?": a question of how things are, asking nothing of the robot by itself.
  if (
    /^(?:do|does|did|have|has)\s+(?:we|i|they|he|she|it|the|my|our|your|their|that|this)\b/i.test(core) &&
    !/^do\s+the\s+same\b/i.test(core)
  )
    return true;
  if (
    !core ||
    WISH.test(core.replace(/^(?:please|kindly|just)\s+/i, "")) ||
    OPEN_WISH.test(core) ||
    LOOKING.test(core) ||
    FRONTED.test(core) ||
    dropYouFrame(core) !== core ||
    startsOrder(core.replace(POLITE, "")) ||
    passive(dropRelative(core.replace(POLITE, ""))) !== undefined ||
    whereQuestion(core) ||
    SEEN.test(core)
  )
    return false;
  const terms = termsOf(core);
  const first = terms[0];
  // "That" leads a statement only as a determiner ("that blue mug doesn't belong …"), not as "that is" or a relative.
  if (
    !first ||
    /^(?:you|which|who|what|where|so|and|or|but|then|please)$/.test(first.word) ||
    (first.word === "that" && !(terms[1]?.tags.has("Noun") || terms[1]?.tags.has("Adjective")))
  )
    return false;
  // "Wooden cabinet door is shut": a thing named without its article, an adjective first.
  const describedThing = first.tags.has("Adjective") && !!terms[1]?.tags.has("Noun");
  if (!(
    first.tags.has("Pronoun") ||
    first.tags.has("Determiner") ||
    first.tags.has("Possessive") ||
    first.tags.has("Noun") ||
    first.word === "there" ||
    describedThing
  ))
    return false;
  // Its verb; "needs", "wants" may be tagged nouns after a noun ("the burger needs heating").
  const verb = terms.findIndex(
    (t, i) => t.tags.has("Verb") || (i > 0 && /^(?:needs|wants|has|is|are|was|were)$/.test(t.word)),
  );
  // "In the kitchen, …" is no subject; "the apple on the table has gone mushy" is (a thing, then where it is).
  const thing = first.tags.has("Determiner") || first.tags.has("Possessive");
  // An aside between commas may part the subject from its verb ("both things in the fridge, the milk and the tea, have …").
  const reach = terms.slice(0, Math.max(verb, 0)).some((t) => t.stop) ? 12 : 8;
  return verb >= 1 && verb <= reach && (thing || !terms.slice(0, verb).some((t) => t.tags.has("Preposition")));
}

/**
 * A sentence cut where its clauses meet: "once you've found the tea, throw it out" (the first step said as an
 * order), "the fridge is full, so put the orange in the bin", "toss the sponge, it's falling apart" (a statement after a
 * comma). Other commas ("the orange, which is on the table, into the sink") stay inside their clause.
 */
function clausesOf(sentence: string): string[] {
  const body = sentence.trim().replace(/[.;:!?]+$/, "");
  // "When you get a chance, …", "if it's not too much trouble, …": politeness first, then the order.
  const first = /^([^,]+),\s*(.+)$/.exec(body);
  if (first && POLITE_CLAUSE.test(first[1].replace(POLITE, "").trim())) return clausesOf(first[2]);
  const sub = /^(?:once|after|when|as\s+soon\s+as)\s+(?:you\s+(?:have\s+|had\s+)?)?([a-z]+)\b([^,]*),\s*(.+)$/i.exec(
    body,
  );
  if (sub && isVerb(termsOf(`${sub[1]}${sub[2]}`)[0])) return [`${infinitive(sub[1])}${sub[2]}`, ...clausesOf(sub[3])];
  const out: string[] = [];
  // "…, and I'll pour it out later": another person's part, a statement of its own.
  // "Where is the cup and where is the sponge": two questions. "Put it in the sink it's gone off", said without a comma: a
  // statement starts at "it is"/"it has" (not "where it is").
  for (const piece of body
    .split(
      /,\s+|\s+and\s+(?=(?:i|we|he|she|they)\s+(?:will|would|can|could|am|are|shall|might|may)\b)|\s+and\s+(?=where\b)|\s+but\s+(?=(?:i|we|you|please|could|can|would)\b)|(?<=\b(?:in|into|on|onto|inside|to)\s+(?:the\s+)?[a-z_]+)\s+(?=i\s+(?!(?:mean|meant)\b)[a-z]+)|(?<!\b(?:where|as|what|if|whether|that|so|because|when|while|until|once))\s+(?=(?:it|they)\s+(?:is|are|has|have|was|were)\s+(?!(?:in|on|inside|into)\b))/i,
    )
    .filter((x) => x.trim())) {
    // "…, don't move anything": how, not what (the reader keeps the constraint when it reads the words as written).
    if (out.length && /^(?:do\s+not|don't|never)\s+(?:move|touch|take|bring)\b/i.test(piece.trim())) continue;
    // "…, dear, …", "…, you see, …": said to the listener, asking nothing.
    if (
      out.length &&
      new RegExp(`^(?:${ADDRESS}|you\\s+see|you\\s+know|i\\s+guess|i\\s+suppose)$`, "i").test(piece.trim())
    )
      continue;
    // "Apple go to trash, is old": how it is, said without its subject.
    if (out.length && /^(?:is|are|was|were)\s+(?:so\s+|too\s+|very\s+|all\s+)?[a-z]+$/i.test(piece.trim())) continue;
    // "No need to touch them", said after a comma: politeness, asking nothing.
    if (out.length && POLITE_CLAUSE.test(piece.replace(POLITE, "").trim())) continue;
    const so = /^(?:so|but|and\s+so|and|yet|after\s+that|afterwards|then|and\s+then|next|later|also)\s+(.+)$/i.exec(
      piece,
    );
    const asks = (part: string) =>
      startsOrder(part.replace(POLITE, "")) ||
      passive(part.replace(POLITE, "")) !== undefined ||
      WISH.test(part) ||
      MUST.test(part) ||
      /^(?:can|could|would|will)\s+(?:the|a|an|my|our|this|that)\b/i.test(part.replace(POLITE, ""));
    if (out.length && so && asks(so[1])) out.push(so[1]);
    // "The milk is in the fridge but I need it on the table": an order after a statement.
    else if (out.length && isStatement(out[out.length - 1]) && asks(piece)) out.push(piece);
    // "…, and the orange as well": one more thing for the order before; "bread to oven, tea to bin": a list of terse orders.
    else if (
      out.length &&
      (moreOf(piece) ||
        whereQuestion(piece) ||
        (terse(piece.replace(POLITE, "")) && terse(out[out.length - 1].replace(POLITE, ""))))
    )
      out.push(piece);
    else if (out.length && isStatement(piece)) out.push(piece);
    // "…, please dispose of it": an order, whatever the library tags its verb.
    else if (out.length && (startsOrder(piece.replace(POLITE, "")) || /^please\s+[a-z]/i.test(piece))) out.push(piece);
    // "The apple goes in the fridge, the orange goes in the bin": one more order of the same kind.
    else if (
      out.length &&
      passive(piece) !== undefined &&
      passive(out[out.length - 1].replace(POLITE, "")) !== undefined
    )
      out.push(piece);
    else if (out.length) out[out.length - 1] += `, ${piece}`;
    else out.push(piece);
  }
  return out;
}

/**
 * A few words that name nothing the world has and no thing at all ("Back on shift at seven.", "Rig test one.", "Hardest
 * variant now."): a heading or an aside, not an order. An order the reader cannot do ("wash the apple") starts with
 * its verb and names a thing, and is kept for the reader to refuse.
 */
function fragment(part: string, knows: Knows): boolean {
  const terms = termsOf(part);
  return (
    terms.length <= 5 &&
    !knows(part) &&
    !terms.some((t) => DETERMINER.test(t.word) || t.tags.has("Possessive") || t.tags.has("Pronoun")) &&
    !(isVerb(terms[0]) && terms[0].tags.has("Infinitive"))
  );
}

/** "Go and …", "take a look and …": words before "and" that only lead into the order after it. */
const leadsIn = (part: string) => {
  const lone = termsOf(part.replace(POLITE, ""));
  const words = part.replace(POLITE, "").trim();
  return (
    (lone.length === 1 && isVerb(lone[0])) ||
    A_LOOK.test(words) ||
    /^(?:go|walk|head|come)\s+(?:over\s+|back\s+)?(?:to|into)\s+[^,]+$/i.test(words) ||
    /^(?:do\s+(?:me|us)\s+a\s+(?:favou?r|kindness)|be\s+(?:so\s+kind|a\s+(?:dear|love|darling|sweetheart|star|gem)|an\s+angel))$/i.test(
      words,
    )
  );
};

/**
 * Texting said in full: a letter drawn out ("pleeease"), "u", "r", "ur", "plz", "thx" — the words a reader of English
 * takes them for.
 */
const texting = (text: string) =>
  text
    .replace(/([a-z])\1{2,}/gi, "$1")
    .replace(/\bu\b/gi, "you")
    .replace(/\br\b/gi, "are")
    .replace(/\bur\b/gi, "your")
    .replace(/\bpl[sz]\b/gi, "please")
    .replace(/\b(?:thx|ty)\b/gi, "thanks")
    .replace(/\bwheres\b/gi, "where is")
    .replace(/\bteh\b/gi, "the")
    .replace(/\bn\b/gi, "and")
    .replace(/\b(dont|cant|wont|doesnt|isnt)\b/gi, (w) => `${w.slice(0, -1)}'t`)
    .replace(/\bgonna\b/gi, "going to")
    .replace(/\bits\s+(?=(?:a|an|the)\s)/gi, "it is ")
    // "Milk's expired", "the loaf's been sitting": "is"/"has", not a possessive.
    .replace(/\b([a-z]+)'s\s+(?=(?:gone|been|got)\b)/gi, "$1 has ")
    .replace(
      /\b([a-z]+)'s\s+(?=(?:expired|past|off|broken|empty|full|in|on|not|so|too|very|all|still|already|falling|going|sitting|fine|bad|old|stale|rotten|mouldy|moldy)\b)/gi,
      "$1 is ",
    )
    .replace(/\bprob\b/gi, "probably")
    .replace(/\s*\blol\b/gi, "")
    // "jk" (just kidding) takes back what was just said.
    .replace(/\s+jk\b[,.!]*\s*/gi, ". No wait, ")
    // "its gone off", "its so gross": "it's", said without the apostrophe.
    .replace(/\bits\s+(?=(?:gone|been|got)\b)/gi, "it has ")
    .replace(
      /\bits\s+(?=(?:so|too|very|really|all|past|old|dirty|gross|expired|broken|off|empty|full|mouldy|moldy|rotten|stale|bad|disgusting)\b)/gi,
      "it is ",
    );

function restateSentences(text: string, knows?: Knows): string {
  // A part is an order, a statement (the things it names), or a correction of the order before it.
  const parts: { order?: string; named?: Mention[]; corrects?: boolean; hidden?: boolean }[] = [];
  // Other ways to join a list: "the milk as well as the tea", "along with", "together with", "plus".
  // "The vitamins and the medication, both out on the table": where all of them go.
  const joined = expandContractions(texting(text))
    .replace(
      /,?\s+(?:as\s+well\s+as|along\s+with|together\s+with|plus)\s+(?=(?:the|a|an|my|some|both|all|this|that|these|those)\b)/gi,
      " and ",
    )
    .replace(/,?\s+(?:both|all(?:\s+of\s+them)?)\s+(?:out\s+|back\s+)?(?=(?:on|in|into|onto|inside)\s)/gi, " ")
    // "Could the vitamins maybe go on the table?": a hedge inside an order says nothing of what.
    .replace(/(?<=\w)\s+(?:maybe|perhaps|possibly)\s+(?=(?:go|be|put|the|a|my|on|in|into)\b)/gi, " ")
    // "bread -> oven": to.
    .replace(/\s*(?:->|→)\s*/g, " to ")
    // "Not the oven, the fridge.": the same.
    .replace(/(^|[.!?]\s+)(?:sorry,?\s+)?not\s+(?:the|a|my)\s+[a-z ]+?,\s+(?=(?:the|a|my)\s)/gi, "$1No wait, ")
    // "Sorry, not the oven, I meant the middle drawer": the same.
    .replace(/\b(?:sorry,?\s+)?not\s+(?:the|a|my)\s+[a-z ]+?,\s+(?:i\s+mean[t]?|but|rather)\s+/gi, "No wait, ")
    // "Orange in the middle drawer, no sorry, the top drawer": a correction, said as its own sentence.
    .replace(/,\s+(?:no,?\s+(?:sorry|wait)|sorry,?\s+i\s+mean[t]?|or\s+rather|i\s+mean[t]?)[,\s]+/gi, ". No wait, ");
  // An aside in brackets is a sentence of its own.
  const sentences = joined
    .replace(/\s*\(([^)]+)\)\s*([.!?]?)/g, ". $1. ")
    .replace(/\.\s*\.\s*$/, ".")
    .split(/(?<=[.;:!?])\s+|\s+[—–-]+\s+/)
    .filter((x) => x.replace(/[.;:!?\s]/g, ""));
  let correcting = false;
  for (const [n, written] of sentences.entries()) {
    // "No wait, the middle one", "sorry, I mean the other way round: …": what follows replaces the order before.
    const spoken = written.replace(/^(?:oh|um|uh|er|hmm|ah)\b[,!]*\s+/i, "");
    const correction = parts.some((p) => p.order) ? CORRECTION.exec(spoken) : null;
    const sentence = correction
      ? spoken.slice(correction[0].length).replace(/^the\s+other\s+way\s+(?:round|around)\b[,:]?\s*/i, "")
      : written;
    correcting ||= !!correction;
    // "Empty the sink: the cup goes on the table and …": what follows the colon says what the heading asks.
    if ((/:\s*$/.test(sentence) || !sentence.replace(/[.;:!?\s]/g, "")) && n < sentences.length - 1) continue;
    if (correcting) {
      parts.push({ order: sentence.replace(/[.;:!?]+$/, ""), corrects: true });
      correcting = false;
      continue;
    }
    for (const clause of clausesOf(sentence)) {
      // "Somewhere around here there's a blue cube": a thing said to be somewhere, with nothing else asked, is to be found.
      const hidden = SOMEWHERE.exec(clause.trim().replace(/[.;:!?,]+$/, ""));
      if (hidden) {
        const thing = hidden[1] ?? hidden[2] ?? hidden[3];
        parts.push(
          { named: mentionsOf(clause) },
          {
            order: `find ${/^(?:the|a|an|my|some|any|our|that|this)\s/i.test(thing) ? thing : `the ${thing}`}`,
            hidden: true,
          },
        );
        continue;
      }
      if (isStatement(clause)) {
        parts.push({ named: mentionsOf(clause) });
        continue;
      }
      // Two orders in one sentence: "X and then Y", "X, then Y", "X and Y" where Y starts with a verb.
      // A sentence whose thing comes first ("the tea should be taken out … and left …") is one order about that thing,
      // unless another thing's own sentence follows "and" ("the cup goes on the table and the sponge goes in …").
      const passiveClause = passive(clause.replace(/[.;:!?,]+$/, "").replace(POLITE, "")) !== undefined;
      const pieces = passiveClause
        ? clause.split(/,?\s+and\s+|,?\s+(?:and\s+)?then\s+/i).reduce<string[]>((out, bit) => {
            if (
              out.length &&
              !startsOrder(bit) &&
              passive(bit) !== undefined &&
              passive(out[out.length - 1].replace(POLITE, "")) !== undefined
            )
              out.push(bit);
            else if (out.length) out[out.length - 1] += ` and ${bit}`;
            else out.push(bit);
            return out;
          }, [])
        : clause.split(/,?\s+and\s+then\s+|,\s*then\s+|\s+then\s+/i).flatMap((segment) => {
            const out: string[] = [];
            for (const bit of segment.split(/,?\s+and\s+/i)) {
              if (out.length && startsOrder(bit) && leadsIn(out[out.length - 1])) out[out.length - 1] = bit;
              else if (out.length && startsOrder(bit)) out.push(bit);
              // "the scrubber, and also the milk": the list goes on, without the adverb.
              else if (out.length) {
                const words = termsOf(bit);
                const lead = words.findIndex((t) => !isAdverb(t));
                out[out.length - 1] += ` and ${
                  lead > 0
                    ? words
                        .slice(lead)
                        .map((t) => t.text)
                        .join(" ")
                    : bit
                }`;
              } else out.push(bit);
            }
            return out;
          });
      parts.push(
        ...pieces
          .map(restateClause)
          .flatMap((p) => p.split(/(?<=\.)\s+/))
          .map((p) => p.replace(/\.$/, ""))
          .filter((p) => p.trim() && !(knows && fragment(p, knows)))
          .map((order) => ({ order })),
      );
    }
  }
  // A thing said to be somewhere is to be found only when nothing else is asked.
  if (parts.some((p) => p.order && !p.hidden)) parts.splice(0, parts.length, ...parts.filter((p) => !p.hidden));
  // "It" and "them" said as the thing they stand for: the thing of the order before, or one a statement named.
  let named: Mention[] = [];
  let said: Mention[] = [];
  const places: Mention[] = [];
  const orders: string[] = [];
  // The last thing a statement named that no order has taken in hand ("the wooden cabinet is barred … remove the bar").
  const stated = () => {
    const taken = new Set(orders.map((o) => objectOf(o)?.split(/\s+/).at(-1)?.toLowerCase()).filter(Boolean));
    return [...statedThings]
      .reverse()
      .find((m) => !m.placed && (!knows || knows(m.text)) && !taken.has(m.text.split(/\s+/).at(-1)!.toLowerCase()))
      ?.text;
  };
  const statedThings: Mention[] = [];
  // Containers said by their doors or handles ("the cabinet handles"), the last said first.
  const withDoors = [
    ...joined.matchAll(/\b((?:the|a|an|its|my)\s+(?:[a-z]+\s+)?[a-z]+)\s+(?:doors?|handles?|lids?)\b/gi),
  ]
    .map((x) => x[1])
    .reverse();
  for (const [k, p] of parts.entries()) {
    if (p.named) {
      statedThings.push(...p.named);
      // A statement adds to what "it" may mean ("the bread has gone mouldy. It's been in that drawer …, throw it away").
      if (p.named.length) {
        named = [...named, ...p.named];
        said = p.named;
      }
      places.push(...p.named.filter((m) => m.placed));
      orders.push("");
      continue;
    }
    let order = p.order!;
    const last = orders.findLastIndex(Boolean);
    if (p.corrects && last >= 0) {
      // A thing or a place alone replaces the last one the order named ("the middle one" → "the middle drawer"); an
      // order of its own replaces the order.
      const previous = orders[last];
      // "No wait, the middle drawer, the top one's full": the phrase before the comma; what follows says why.
      const phrase = /^((?:the|a|an|my)\s+[a-z ]+?)(?:,.*)?$/i.exec(order.trim())?.[1];
      const said = phrase && (objectOf(phrase) === phrase || /\sone$/i.test(phrase)) ? phrase : undefined;
      const np = said ? mentionsOf(previous).at(-1) : undefined;
      const head = np?.text.split(/\s+/).at(-1);
      orders[last] = "";
      if (np && head) order = previous.replace(np.text, said!.replace(/\bone$/i, head));
      // "Wait, no, the orange is fine actually": the order is taken back, and nothing put in its place.
      else if (clausesOf(order).every(isStatement)) {
        orders.push("");
        continue;
      } else order = restateClause(order);
    }
    // "Toss both", "throw them both away": the things the statement before named.
    const handled = named.filter((m) => !m.placed && (!knows || knows(m.text)));
    if (!objectOf(order) && handled.length >= 2)
      order = order.replace(/\b(?:them\s+both|both\s+of\s+them|both)\b/i, handled.map((m) => m.text).join(" and "));
    // "The bread too", "and the orange as well": the order before, with this thing.
    const too = moreOf(order);
    // "Please find.", "bring please": a verb alone is said of the thing named last.
    if (/^(?:find|locate|fetch|bring|get|grab|bin|toss)$/i.test(order.trim()) && named.length)
      order = `${order.trim()} it`;
    // "… and then do the same with the orange": the order before, with this thing.
    const same = /^do\s+the\s+same\s+(?:with|for|to)\s+(.+)$/i.exec(order);
    const before = [...orders].reverse().find(Boolean);
    const itsThing = before ? objectOf(before) : undefined;
    if (same && before && itsThing) order = before.replace(itsThing, same[1]);
    if (too && before && itsThing) order = before.replace(itsThing, too[1]);
    // "Take the vitamin from the drawer and put on the table": put it there.
    const lastThing =
      [...orders]
        .reverse()
        .map((o) => (o ? objectOf(o) : undefined))
        .find(Boolean) ?? named.filter((m) => !m.placed).at(-1)?.text;
    if (BARE_PUT.test(order) && lastThing) order = order.replace(/^(\S+)\s+/, `$1 ${lastThing} `);
    // "Remove the bar, open it up": what is opened is what a statement named, not the thing just taken away.
    const openedThing = /^open\s+(?:it|them)\b/i.test(order) ? stated() : undefined;
    if (openedThing) order = order.replace(/\b(?:it|them)\b/i, openedThing);
    const pronoun = /\b(?:it|them)\b/i.exec(order);
    const stands = pronoun
      ? referent(
          pronoun[0],
          named,
          knows,
          LOCATION.test(order.slice(0, pronoun.index).trim().split(/\s+/).at(-1) ?? ""),
        )
      : undefined;
    if (pronoun && stands)
      order = order.replace(
        /\b(?:it|them)\b/i,
        stands.replace(/^\w/, (x) => x.toLowerCase()),
      );
    // "The red one": the same kind of thing as the one named before ("the yellow cube … the red one" → "the red cube").
    const kind = (named.filter((m) => !m.placed).at(-1) ?? named.at(-1))?.text.split(/\s+/).at(-1);
    // After "in"/"on", "the middle one" is a place of the kind named last ("the top drawer … the middle one").
    const placeKind = places.at(-1)?.text.split(/\s+/).at(-1);
    if (placeKind)
      order = order.replace(/\b(in|into|on|onto|inside|to)\s+the\s+([a-z]+)\s+one\b/gi, `$1 the $2 ${placeKind}`);
    if (kind)
      order = order
        .replace(/\b(the|a)\s+([a-z]+)\s+one\b/i, `$1 $2 ${kind}`)
        .replace(/\bthe\s+one\b(?=\s+(?:on|in|from|inside|that|which)\b)/i, `the ${kind}`);
    // "Put it there (instead)": where it goes is the place named last.
    order = order.replace(/\s+instead$/i, "");
    if (places.length && /^(?:put|place|set|move|stick|pop|leave)\b/i.test(order))
      order = order.replace(/(?<!\b(?:in|into|on|onto|inside|to|from|of))\s+there$/i, ` to ${places.at(-1)!.text}`);
    // "Open the door(s)": of the container the instruction named ("the grey stone cupboard is locked …").
    if (/^open\s+(?:the\s+)?(?:doors?|lid)$/i.test(order)) {
      const owner = withDoors[0] ?? stated();
      if (owner) order = `open ${owner}`;
    }
    // "Open the wooden cabinet door": the cabinet.
    order = order.replace(/^(open\s+\S+\s+\S+.*?)(?:'s)?\s+(?:doors?|lid)$/i, "$1");
    // "Put the cube inside": inside what was named last ("open the cabinet doors and put the cube inside").
    const bare = /^(?:put|place|set|move|stick|pop|slide|tuck)\b.*\s(inside|in|into)$/i.exec(order);
    // The container is said without its doors or handles ("open the doors" names none: "the cabinet handles" before does).
    const opened = [...orders]
      .reverse()
      .filter((o) => /^open\b/i.test(o))
      .map(objectOf);
    const container = [
      ...opened.map((x) => x?.replace(DOORS, "")),
      ...withDoors,
      stated(),
      ...[...orders].reverse().map((o) => (o ? objectOf(o)?.replace(DOORS, "") : undefined)),
    ].find((x) => !!x && /\s/.test(x) && x !== objectOf(order));
    if (bare && container) order = `${order} ${container}`;
    // "In there": the place named last (or, after a statement, what it was about: "the oven is warm, put it in there").
    const there = [...places].reverse().find((m) => !knows || knows(m.text)) ?? (said.length ? said.at(-1) : undefined);
    if (there) order = order.replace(/\b(in|into|on|onto|inside)\s+there\b/i, `$1 ${there.text}`);
    places.push(...mentionsOf(order).filter((m) => m.placed));
    const next = parts.slice(k + 1).find((x) => x.order)?.order;
    const thing = objectOf(order);
    // The next part says where it goes, with "it" said as the thing: taking it in hand is part of that.
    // "Bring them out": a particle alone ("out", "up", "over") says nowhere.
    const nowhere =
      !!thing &&
      !TARGET.test(
        order
          .replace(/^\S+\s+/, "")
          .replace(thing, "")
          .replace(/\b(?:out|up|back|over|down|off)\b(?!\s+of\b)/gi, ""),
      );
    if (TAKING.test(order) && nowhere && next && (/\b(?:it|them|both)\b/i.test(next) || BARE_PUT.test(next)))
      order = "";
    // "… they ought to live in the fridge. Would you mind moving them?": moving it was asked already, with where.
    else if (
      nowhere &&
      /^(?:move|put|take|bring|shift|carry|relocate|warm|heat|cool|chill)\b/i.test(order) &&
      orders.some((o) => objectOf(o) === thing && TARGET.test(o.replace(thing!, "")))
    )
      order = "";
    else {
      const base = infinitive(order.split(/\s+/)[0] ?? "");
      if (plainVerb(base) !== base) order = `${plainVerb(base)}${order.slice(order.split(/\s+/)[0].length)}`;
    }
    // "Grab the vitamins and the medication and put both …": every thing the order names.
    const things = mentionsOf(order).filter((m) => !m.placed);
    if (things.length >= 2) named = things;
    else if (thing)
      named = [
        {
          text: thing,
          plural: /\b(?:and|both|all)\b/i.test(thing) || termsOf(thing).some((t) => t.tags.has("Plural")),
          placed: false,
        },
      ];
    orders.push(order);
  }
  return orders
    .filter(Boolean)
    .map((p) => `${p.charAt(0).toUpperCase()}${p.slice(1)}.`)
    .join(" ");
}

/** Whether words before a thing's name only describe it ("old", "rotten", "big green"): adjectives, by the library's tags. */
export function describesOnly(words: string[], before = "the"): boolean {
  // Tagged where they stand: "unlocks" after "the red cube on the sensor" is a verb, not a describing word.
  const terms = termsOf(`${before} ${words.join(" ")} thing`).slice(-1 - words.length, -1);
  // Adjectives, participles ("chipped"), and a word or two the library takes for a noun ("leftover", "mouldy"): before a
  // name, they say which of its kind or in what state, not another thing.
  return (
    terms.length === words.length &&
    words.length <= 2 &&
    terms.every(
      (term) =>
        (term.tags.has("Adjective") ||
          (isVerb(term) && (term.tags.has("PastTense") || term.tags.has("Participle"))) ||
          (term.tags.has("Noun") && term.tags.has("Singular"))) &&
        !term.tags.has("Pronoun"),
    )
  );
}
