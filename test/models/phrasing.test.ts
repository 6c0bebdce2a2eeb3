/**
 * Sentences said again as plain orders (models/reasoning/phrasing.ts), with compromise's tags: passives, polite
 * frames, means ("by putting it in …"), purposes, two-part tasks and "it" for the thing it stands for. Sentences
 * already plain are left as they are.
 */
import { describe, expect, it } from "vitest";
import { restate } from "../../models/reasoning/phrasing";

/** Each sentence restated as the order given beside it. */
const reads = (rows: [sentence: string, order: string][]) => {
  for (const [sentence, order] of rows) expect(restate(sentence), sentence).toBe(order);
};

describe("restating an instruction", () => {
  it("says a passive, a wish or a 'needs to go' as an order", () => {
    reads([
      ["The apple should be heated in the oven.", "Heat the apple in the oven."],
      ["The milk should be put back in the refrigerator.", "Put the milk back in the refrigerator."],
      ["I want the vitamins thrown away.", "Throw the vitamins away."],
      ["The bread needs to go in the upper drawer.", "Put the bread in the upper drawer."],
    ]);
  });

  it("drops polite frames and purposes, and reads the means as the order", () => {
    reads([
      ["Would you mind throwing the medication into the garbage?", "Throw the medication into the garbage."],
      ["Could you please put the milk in the fridge so that it stays cold?", "Put the milk in the fridge."],
      ["Store the iced tea in the refrigerator to keep it cold.", "Store the iced tea in the refrigerator."],
      ["Get rid of the tea bottle by putting it in the trash bin.", "Put the tea bottle in the trash bin."],
    ]);
  });

  it("splits two-part tasks and says 'it' as the thing it stands for", () => {
    reads([
      ["Grab the orange and then drop it into the sink.", "Drop the orange into the sink."],
      ["First find the apple, and then put it in the oven.", "Find the apple. Put the apple in the oven."],
    ]);
  });

  it("reads contractions in full and frames of any length that hand the order to 'you'", () => {
    reads([
      ["We'd prefer the milk to be kept in the fridge.", "Put the milk in the fridge."],
      ["Do you think you could put the cup in the sink?", "Put the cup in the sink."],
      ["If you could put the bread on the table, that would be great.", "Put the bread on the table."],
      ["Help me clean up by putting the cup in the sink.", "Put the cup in the sink."],
    ]);
  });

  it("asks for a thing to be found when the question is where it might be, or whether it was seen", () => {
    reads([
      ["Where did I leave the tea?", "Find the tea."],
      ["Any idea where the orange and the apple went?", "Find the orange and the apple."],
      ["Have you seen the vitamins?", "Find the vitamins."],
    ]);
    // An order that says where, and a question of where a thing belongs, are no search.
    expect(restate("Put the cup in the sink where the sponge is.")).not.toMatch(/^Find/);
    expect(restate("Where does the milk go?")).not.toMatch(/^Find/);
  });

  it("carries a list and a passive on past 'and', and reads a purpose that says where as the destination", () => {
    reads([
      ["Look for the sponge as well as the cup.", "Look for the sponge and the cup."],
      ["Come and find the orange, and also the milk.", "Find the orange and the milk."],
      ["The cup needs to be picked up and then placed in the sink.", "Place the cup in the sink."],
      ["The milk should be removed from the fridge and put on the table.", "Take the milk from the fridge. Put the milk on the table."],
      ["Move the apple so that it ends up in the oven.", "Move the apple in the oven."],
      ["Bring the cup over so that I can wash it.", "Bring the cup over."],
    ]);
  });

  it("leaves an order it has no reading for as written, for the reader to name", () => {
    reads([
      ["Put the orange into the sink and wash the apple.", "Put the orange into the sink. Wash the apple."],
    ]);
  });
});
