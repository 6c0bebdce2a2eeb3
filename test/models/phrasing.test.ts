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

  it("reads contractions in full and frames of any length that hand the order to 'you'", () => {
    expect(restate("We'd prefer the milk to be kept in the fridge.")).toBe("Put the milk in the fridge.");
    expect(restate("Do you think you could put the cup in the sink?")).toBe("Put the cup in the sink.");
    expect(restate("If you could put the bread on the table, that would be great.")).toBe("Put the bread on the table.");
    expect(restate("Help me clean up by putting the cup in the sink.")).toBe("Put the cup in the sink.");
  });

  it("asks for a thing to be found when the question is where it might be, or whether it was seen", () => {
    expect(restate("Where did I leave the tea?")).toBe("Find the tea.");
    expect(restate("Any idea where the orange and the apple went?")).toBe("Find the orange and the apple.");
    expect(restate("Have you seen the vitamins?")).toBe("Find the vitamins.");
    // An order that says where, and a question of where a thing belongs, are no search.
    expect(restate("Put the cup in the sink where the sponge is.")).not.toMatch(/^Find/);
    expect(restate("Where does the milk go?")).not.toMatch(/^Find/);
  });

  it("carries a list and a passive on past 'and', and reads a purpose that says where as the destination", () => {
    expect(restate("Look for the sponge as well as the cup.")).toBe("Look for the sponge and the cup.");
    expect(restate("Come and find the orange, and also the milk.")).toBe("Find the orange and the milk.");
    expect(restate("The cup needs to be picked up and then placed in the sink.")).toBe("Place the cup in the sink.");
    expect(restate("The milk should be removed from the fridge and put on the table.")).toBe("Take the milk from the fridge. Put the milk on the table.");
    expect(restate("Move the apple so that it ends up in the oven.")).toBe("Move the apple in the oven.");
    expect(restate("Bring the cup over so that I can wash it.")).toBe("Bring the cup over.");
  });

  it("leaves an order it has no reading for as written, for the reader to name", () => {
    expect(restate("Put the orange into the sink and wash the apple.")).toBe("Put the orange into the sink. Wash the apple.");
  });
});
