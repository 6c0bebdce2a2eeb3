/**
 * Generated worlds (courses, kitchens) are named `generated_<seed>`. Seeds below FIRST_SCORED_SEED are the tuning
 * range — they may be looked at while improving the reasoners; from FIRST_SCORED_SEED on they are scored, run and
 * counted, never looked at step by step.
 */
export const FIRST_SCORED_SEED = 1000;

export const generatedName = (seed: number) => `generated_${seed}`;

/** The seed of a generated world's name, or undefined for any other name. */
export function generatedSeed(name: string): number | undefined {
  const match = /^generated_(\d{1,9})$/.exec(name);
  return match ? Number(match[1]) : undefined;
}
