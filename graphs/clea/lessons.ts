/**
 * CLEA's lessons (its summarizer alone reads and writes them), kept across episodes in a LangGraph store, namespaced
 * per world: where each object was found — the first place a camera saw it in an episode, before any robot moved it.
 * A new episode starts from them as prior knowledge ("told"), so it looks there first; a camera corrects them.
 */
import type { BaseStore } from "@langchain/langgraph";
import type { Belief } from "./schemas";

// No "_" or "%" in labels: Postgres stores match namespaces with LIKE and refuse them.
const namespace = (world: string) => ["lessons", world, "sightings"];

export async function recallSightings(
  store: BaseStore | undefined,
  world: string,
): Promise<{ object: string; place: string }[]> {
  if (!store) return [];
  const items = await store.search(namespace(world), { limit: 200 });
  return items.map((it) => ({ object: it.key, place: String(it.value.place) }));
}

/** Records the objects this belief update discovered: seen in a place now, unknown or only told before. */
export async function rememberSightings(
  store: BaseStore | undefined,
  world: string,
  before: Belief | null,
  after: Belief,
  places: string[],
  thread: string,
): Promise<void> {
  if (!store) return;
  for (const o of after.objects) {
    if (o.source !== "seen" || !places.includes(o.place)) continue;
    const earlier = before?.objects.find((x) => x.name === o.name);
    if (earlier && earlier.source !== "told") continue;
    const prior = await store.get(namespace(world), o.name);
    if (prior?.value.place === o.place) continue;
    await store.put(namespace(world), o.name, { place: o.place, thread });
  }
}
