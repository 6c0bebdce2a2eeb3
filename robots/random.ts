/**
 * The seeded PRNG both ends use (mulberry32): every noisy thing in a simulator draws from one, and so does the agent's
 * learner when it explores, so a seed fixes a run. It sits below the agent and the simulators, which import nothing of
 * each other.
 */
export class Rng {
  private s: number;
  private spare: number | null = null;
  constructor(seed: number) {
    this.s = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let mixed = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** A standard normal draw (Box–Muller, the second of each pair kept for the next call). */
  normal(): number {
    if (this.spare !== null) {
      const kept = this.spare;
      this.spare = null;
      return kept;
    }
    const first = Math.max(this.next(), 1e-12),
      second = this.next();
    const radius = Math.sqrt(-2 * Math.log(first));
    this.spare = radius * Math.sin(2 * Math.PI * second);
    return radius * Math.cos(2 * Math.PI * second);
  }
}

/** The items in an order drawn from `rng` (Fisher–Yates: one draw per item after the first, from the end). */
export function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const shuffled = [...xs];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  return shuffled;
}
