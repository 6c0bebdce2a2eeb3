/**
 * The ray camera's inline hypot: the same double as Math.hypot for every input, so frames (and the colours the
 * detector reads off them) are what they were with the builtin. MuJoCo-free; the camera itself is exercised by every
 * world's tests.
 */
import { describe, expect, it } from "vitest";
import { hypot3 } from "../../../robots/sim/camera";
import { Rng } from "../../../robots/random";

describe("hypot3", () => {
  it("equals Math.hypot double for double, on normals' sums, mixed scales, raw bit patterns and the edge cases", () => {
    const rng = new Rng(7);
    const bits = new Float64Array(1);
    const words = new Uint32Array(bits.buffer);
    const anyDouble = () => {
      words[0] = Math.floor(rng.next() * 2 ** 32);
      words[1] = Math.floor(rng.next() * 2 ** 32);
      return bits[0];
    };
    const draws: Array<() => number> = [
      () => rng.next() * 8 - 4, // a component of up to four unit normals summed
      () => (rng.next() - 0.5) * 10 ** Math.floor(rng.next() * 40 - 20), // components of very different sizes
      anyDouble, // any bit pattern: subnormals, infinities and NaNs included
      () => Math.round(rng.next() * 8) / 4 - 1, // exact ties: ±0, ±1, halves and quarters
    ];
    let differing = 0;
    let first = "";
    for (let n = 0; n < 400_000; n++) {
      const draw = draws[n % draws.length];
      const [x, y, z] = [draw(), draw(), draw()];
      if (!Object.is(hypot3(x, y, z), Math.hypot(x, y, z)) && differing++ === 0) first = `${x}, ${y}, ${z}`;
    }
    expect(differing, `first difference at (${first})`).toBe(0);
    const edges = [0, -0, 1, -1, NaN, Infinity, -Infinity, Number.MIN_VALUE, Number.MAX_VALUE, -Number.MAX_VALUE];
    for (const x of edges)
      for (const y of edges)
        for (const z of edges) expect(Object.is(hypot3(x, y, z), Math.hypot(x, y, z)), `${x}, ${y}, ${z}`).toBe(true);
  });
});
