/**
 * Sentences said again as plain orders (models/reasoning/phrasing.ts), with compromise's tags: passives, polite
 * frames, means ("by putting it in …"), purposes, two-part tasks and "it" for the thing it stands for. Sentences
 * already plain are left as they are.
 */
import { describe, expect, it } from "vitest";
import { restate } from "../../models/reasoning/phrasing";

describe("restating an instruction", () => {
  it("says a passive, a wish or a 'needs to go' as an order", () => {
    expect(restate("The apple should be heated in the oven.")).toBe("Heat the apple in the oven.");
    expect(restate("The milk should be put back in the refrigerator.")).toBe("Put the milk back in the refrigerator.");
    expect(restate("I want the vitamins thrown away.")).toBe("Throw the vitamins away.");
    expect(restate("The bread needs to go in the upper drawer.")).toBe("Put the bread in the upper drawer.");
  });

  it("drops polite frames and purposes, and reads the means as the order", () => {
    expect(restate("Would you mind throwing the medication into the garbage?")).toBe("Throw the medication into the garbage.");
    expect(restate("Could you please put the milk in the fridge so that it stays cold?")).toBe("Put the milk in the fridge.");
    expect(restate("Store the iced tea in the refrigerator to keep it cold.")).toBe("Store the iced tea in the refrigerator.");
    expect(restate("Get rid of the tea bottle by putting it in the trash bin.")).toBe("Put the tea bottle in the trash bin.");
  });

  it("splits two-part tasks and says 'it' as the thing it stands for", () => {
    expect(restate("Grab the orange and then drop it into the sink.")).toBe("Drop the orange into the sink.");
    expect(restate("First find the apple, and then put it in the oven.")).toBe("Find the apple. Put the apple in the oven.");
  });

  it("leaves an order it has no reading for as written, for the reader to name", () => {
    expect(restate("Put the orange into the sink and wash the apple.")).toBe("Put the orange into the sink. Wash the apple.");
  });
});
