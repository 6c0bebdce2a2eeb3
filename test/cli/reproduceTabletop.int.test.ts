/**
 * `npm run reproduce`: RePLan's tabletop quick figures (its Table 1 and the generated scenes) made again by the
 * commands the docs give, equal to the committed ones (header aside). The other figures: reproduce.int.test.ts; the
 * two files run side by side.
 */
import { describe, expect, it } from "vitest";
import { TABLETOP_FIGURES, differences, reproduceCheck } from "../helpers/reproduce";

describe("npm run reproduce, the tabletop's figures", () => {
  it("makes RePLan's tabletop quick figures again, equal to those committed in docs/results/quick/", async () => {
    const { code, said } = await reproduceCheck(TABLETOP_FIGURES);
    expect(code, differences(said)).toBe(0);
    for (const id of TABLETOP_FIGURES) expect(said, differences(said)).toContain(`${id}] same as committed`);
  }, 900_000);
});
