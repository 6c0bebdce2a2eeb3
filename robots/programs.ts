/**
 * How RoboGraph starts a program of its own as a child process — the CLI, a simulator, a dataset script: `node
 * --import tsx <source>`, or, when a precompiled build is named in ROBOGRAPH_PRECOMPILED, node on that build. tsx's
 * loader sits in front of every module langchain loads, so the CLI's `--help` takes ~3.5 CPU s under it against ~0.8
 * from the build; the suite and `reproduce` start hundreds of children, and build one for their run.
 */
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The environment variable naming a precompiled build's directory (inherited by every child). */
export const PRECOMPILED = "ROBOGRAPH_PRECOMPILED";

/** The programs a build holds: every script RoboGraph starts as a child of its own. */
const PROGRAMS = ["cli/robograph.ts", "robots/sim/main.ts", "evals/datasets/behaviorCriticBenchmark.ts"];

/**
 * Packages the build leaves for node to load from node_modules: native addons (better-sqlite3, sharp, pg's optional
 * pg-native), and packages that find files of their own beside themselves (MuJoCo's WASM, esbuild's binary,
 * playwright's browsers' registry). Every other package is bundled: node then reads and links a few large files instead
 * of the thousand-odd modules langchain and its kin are made of, which was most of a program's start (the CLI's
 * `--help` in 0.8 CPU s instead of 1.7 with every package left to node). None of these imports a bundled package, so
 * each package has one copy in a process.
 */
const EXTERNAL = ["@mujoco/mujoco", "better-sqlite3", "sharp", "pg-native", "esbuild", "playwright-core"];

/** Node's arguments to run `script` (a path from the repository's root) with `args`. */
export function programArgs(script: string, args: string[] = []): string[] {
  const build = process.env[PRECOMPILED];
  const built = build ? join(build, script.replace(/\.ts$/, ".js")) : undefined;
  return built && existsSync(built) ? [built, ...args] : ["--import", "tsx", join(ROOT, script), ...args];
}

/** Builds whose process is gone (killed before it could remove its own). */
function leftBehind(cache: string): string[] {
  if (!existsSync(cache)) return [];
  return readdirSync(cache)
    .map((name) => ({ name, pid: Number(/^precompiled-(\d+)-/.exec(name)?.[1]) }))
    .filter(({ pid }) => pid > 0 && !alive(pid))
    .map(({ name }) => join(cache, name));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it lives, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Builds every program into one directory under node_modules/.cache (where node finds the packages they import,
 * left out of the build) and names it in this process's environment, so its children and theirs use it. Each module
 * keeps its own source's `import.meta.url`, so the files it finds beside itself are found; a program starts as its
 * source would, with `process.argv[1]` its source's path, so its "am I the main module" check holds. Returns how to
 * remove it. Nothing is built when a build is already named.
 */
export async function precompile(): Promise<{ dir: string; remove(): void }> {
  const named = process.env[PRECOMPILED];
  if (named) return { dir: named, remove() {} };
  const { build } = await import("esbuild");
  const cache = join(ROOT, "node_modules", ".cache", "robograph");
  leftBehind(cache).forEach((stale) => rmSync(stale, { recursive: true, force: true }));
  const dir = join(cache, `precompiled-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    await build({
      entryPoints: PROGRAMS.map((script) => ({ in: `program:${script}`, out: script.replace(/\.ts$/, "") })),
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: EXTERNAL,
      // Bundled CommonJS packages require node's own modules: an ES module has no `require` of its own to give them.
      banner: {
        js: 'import { createRequire as robographCreateRequire } from "node:module"; const require = robographCreateRequire(import.meta.url);',
      },
      outdir: dir,
      logLevel: "error",
      // Beside the build, not inline: node would read the maps of every bundled package at each start.
      sourcemap: "linked",
      plugins: [
        {
          name: "robograph-programs",
          setup(esbuild) {
            esbuild.onResolve({ filter: /^program:/ }, (args) => ({
              path: resolve(ROOT, args.path.slice("program:".length)),
              namespace: "program",
            }));
            // A program's entry: its source path as argv[1], then its source (dynamically, so argv is set first).
            esbuild.onLoad({ filter: /.*/, namespace: "program" }, (args) => ({
              contents: `process.argv[1] = ${JSON.stringify(args.path)};\nawait import(${JSON.stringify(args.path)});\n`,
              resolveDir: ROOT,
              loader: "js",
            }));
            esbuild.onLoad({ filter: /\.ts$/ }, async (args) => ({
              contents: (await readFile(args.path, "utf8")).replace(
                /\bimport\.meta\.url\b/g,
                JSON.stringify(pathToFileURL(args.path).href),
              ),
              loader: "ts",
            }));
          },
        },
      ],
    });
  } catch (err) {
    remove();
    throw err;
  }
  process.env[PRECOMPILED] = dir;
  return {
    dir,
    remove() {
      if (process.env[PRECOMPILED] === dir) delete process.env[PRECOMPILED];
      remove();
    },
  };
}
