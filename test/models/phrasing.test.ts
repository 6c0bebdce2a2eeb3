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
      [
        "The milk should be removed from the fridge and put on the table.",
        "Take the milk from the fridge. Put the milk on the table.",
      ],
      ["Move the apple so that it ends up in the oven.", "Move the apple in the oven."],
      ["Bring the cup over so that I can wash it.", "Bring the cup over."],
    ]);
  });

  it("drops statements of how things are, and takes what they name for 'it', 'there' and 'the red one'", () => {
    reads([
      ["Toss the sponge in the garbage, it's falling apart.", "Toss the sponge in the garbage."],
      ["The doors are already open, so just slide the cube into the cupboard.", "Slide the cube into the cupboard."],
      ["I think the green apple might be in the microwave; can you take a look and find it?", "Find the green apple."],
      ["A red bar is blocking the doors, so get it out of the way.", "Get a red bar out of the way."],
      ["Since the oven is already warm, could you put the burger in there?", "Put the burger in the oven."],
      ["I'm hungry — heat the burger in the oven.", "Heat the burger in the oven."],
      [
        "Take the yellow cube off the crate and put the red one there instead.",
        "Take the yellow cube off the crate. Put the red cube to the crate.",
      ],
    ]);
    // Nothing asked: nothing said.
    expect(restate("The apple is dirty.")).toBe("");
  });

  it("reads a first step said as 'once you've …', a heading before a colon, and 'belongs in'", () => {
    reads([
      ["Once you've tracked down the vitamins, throw them out.", "Track down the vitamins. Throw the vitamins out."],
      [
        "Empty the sink: the cup goes on the table and the sponge goes in the top drawer.",
        "Put the cup on the table. Put the sponge in the top drawer.",
      ],
      [
        "The medicine from the upper drawer belongs in the fridge.",
        "Put the medicine from the upper drawer in the fridge.",
      ],
    ]);
  });

  it("drops for whom, when and why once the order says where; keeps 'for' after a verb of looking", () => {
    reads([
      ["Would you set the milk on the table for breakfast?", "Set the milk on the table."],
      ["Tuck it into the fridge for tomorrow.", "Tuck it into the fridge."],
      ["Put the tea in the fridge because it tastes better cold.", "Put the tea in the fridge."],
      ["I need the tea on the table before my guests arrive.", "Put the tea on the table."],
      ["Find me the green apple.", "Find the green apple."],
    ]);
    expect(restate("Look in the fridge for the milk, then put it on the table.")).toMatch(/for the milk/);
  });

  it("says wishes for how things end up, and steps the robot takes anyway, as the order", () => {
    reads([
      ["I'd love it if the orange were in the fridge.", "Put the orange in the fridge."],
      ["Please make sure that the cup is in the sink.", "Put the cup in the sink."],
      ["Could you grab the tea? It should go in the fridge.", "Put the tea in the fridge."],
      [
        "I'd like the yellow box stored away in the cabinet, please; you'll have to open a door first.",
        "Store the yellow box in the cabinet.",
      ],
      ["Go to the table and get the apple, then put it in the fridge.", "Put the apple in the fridge."],
      ["Could you do me a favour and put the apple in the fridge?", "Put the apple in the fridge."],
      ["Is the milk in the fridge?", "Find the milk."],
    ]);
  });

  it("leaves an order it has no reading for as written, for the reader to name", () => {
    reads([["Put the orange into the sink and wash the apple.", "Put the orange into the sink. Wash the apple."]]);
  });
});
