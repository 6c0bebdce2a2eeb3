import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { METHODS } from "../../graphs";
import { ownSettings } from "../../runtime/settings";
import { campaignHelp, campaignSettings, runCampaign, runCampaignTask } from "../../cli/campaign";

const campaigns = METHODS.filter((m) => m.campaign);

describe("a campaign's command, from its descriptor", () => {
  it("every campaign's budgets and simulators' URLs are settings of its configuration", () => {
    expect(campaigns.length).toBeGreaterThan(0);
    for (const method of campaigns) {
      const keys = Object.keys(method.configuration.shape);
      for (const setting of campaignSettings(method.campaign!)) expect(keys).toContain(setting);
    }
  });

  it("--help lists its budgets by their own names and a flag for each other own setting, from its configuration", () => {
    for (const method of campaigns) {
      const campaign = method.campaign!;
      const help = campaignHelp(method, campaign);
      for (const budget of campaign.budgets) expect(help).toContain(`--${budget.flag} N`);
      const own = ownSettings(method.configuration);
      expect(own.length).toBeGreaterThan(0);
      for (const setting of own) {
        if (campaignSettings(campaign).includes(setting.key)) expect(help).not.toContain(`--${setting.flag} `);
        else expect(help).toContain(`--${setting.flag}`);
      }
    }
  });

  it("refuses what is wrong before any simulator starts: an unknown flag, a start the world lacks, a bad budget", async () => {
    const runs = mkdtempSync(join(tmpdir(), "campaign-"));
    try {
      for (const method of campaigns) {
        const base = ["--graph", method.graph, "--runs-dir", runs, "--data-dir", runs, "--quiet"];
        await expect(runCampaign(method, method.campaign!, [...base, "--max-episodes", "3"])).rejects.toThrow(
          /max-episodes/,
        );
        await expect(runCampaign(method, method.campaign!, [...base, "--start", "sideways"])).rejects.toThrow(
          /--start must be one of .*sideways/,
        );
        // The same checks whoever asks (MCP's tool arguments come as options, not a command line).
        await expect(
          runCampaignTask(method, method.campaign!, { graph: method.graph, "max-episodes": "3" }, { say: () => {} }),
        ).rejects.toThrow(/takes no --max-episodes/);
        const budget = method.campaign!.budgets[0].flag;
        await expect(runCampaign(method, method.campaign!, [...base, `--${budget}`, "0"])).rejects.toThrow(
          new RegExp(`--${budget} must be an integer ≥ 1`),
        );
      }
    } finally {
      rmSync(runs, { recursive: true, force: true });
    }
  });
});
