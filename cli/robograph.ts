#!/usr/bin/env -S npx tsx
/** The `robograph` command. */
import { serveSim, SERVE_SIM_HELP } from "../robots/sim/main";
import { run, RUN_HELP } from "./run";
import { evalCommand, EVAL_HELP } from "./eval";

const HELP = `usage: robograph <command> [options]

commands:
  run                 run one episode of a method in its world (npm start -- …; default: CLEA in the kitchen)
  eval                run an experiment (variants × examples × seeds) and write its report (npm run eval -- …)
  serve-sim <world>   start a simulator serving the rosbridge v2 protocol (npm run sim -- kitchen …)
  bench               run the benchmarks and print their figures (npm run bench)
  view [RUN|EXP]      look at a run or an experiment in the browser, served on 127.0.0.1 (npm run view -- …)
  reproduce           regenerate every table and headline figure the docs publish (npm run reproduce)
  connect URL         ask a robot's rosbridge what it offers and propose a manifest draft (npm run connect -- URL)
  mcp                 serve the robots' skills and the five methods to MCP clients, stdio or HTTP (npm run mcp -- …)
  worker              take queued episodes from ROBOGRAPH_DATABASE_URL and run them here (npm run worker -- …)

Run "robograph <command> --help" for a command's options.
`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case "run":
      process.exitCode = await run(rest);
      return;
    case "eval":
      process.exitCode = await evalCommand(rest);
      return;
    case "serve-sim":
      return serveSim(rest);
    case "view": {
      const { viewCommand } = await import("./view");
      process.exitCode = await viewCommand(rest);
      return;
    }
    case "reproduce": {
      const { reproduceCommand } = await import("./reproduce");
      process.exitCode = await reproduceCommand(rest);
      return;
    }
    case "connect": {
      const { connectCommand } = await import("./connect");
      process.exitCode = await connectCommand(rest);
      return;
    }
    case "mcp": {
      const { mcpCommand } = await import("./mcp");
      process.exitCode = await mcpCommand(rest);
      return;
    }
    case "worker": {
      const { workerCommand } = await import("./worker");
      process.exitCode = await workerCommand(rest);
      return;
    }
    case "bench": {
      const { runBenchmarks } = await import("../evals/bench");
      process.exitCode = await runBenchmarks(rest);
      return;
    }
    case undefined:
    case "-h":
    case "--help":
    case "help":
      process.stdout.write(HELP + "\n" + RUN_HELP + "\n" + EVAL_HELP + "\n" + SERVE_SIM_HELP);
      return;
    default:
      throw new Error(`unknown command ${command}\n\n${HELP}`);
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`robograph: ${(err as Error).message}\n`);
  process.exit(1);
});
