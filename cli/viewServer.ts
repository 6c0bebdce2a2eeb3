/**
 * The viewer's HTTP server, on loopback and read-only: the page (cli/viewer/), Chart.js from node_modules, the views a
 * Library builds as JSON, a record's files and artifacts, and each camera's frames as a GIF. Nothing comes from the
 * network.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import gifenc from "gifenc";
import { HttpError, type Library, type RunView } from "./viewLibrary";

const ASSETS = join(dirname(fileURLToPath(import.meta.url)), "viewer");
const require = createRequire(import.meta.url);
const CHART_JS = join(dirname(require.resolve("chart.js")), "chart.umd.min.js");

export async function cameraGif(files: string[], delayMs = 600): Promise<Buffer> {
  if (!files.length) throw new HttpError(404, "this camera has no frames on disk");
  const first = await sharp(files[0]).metadata();
  const width = first.width ?? 320;
  const height = first.height ?? 240;
  const { GIFEncoder, applyPalette, quantize } = gifenc;
  const gif = GIFEncoder();
  for (const f of files) {
    const { data } = await sharp(f)
      .resize(width, height, { fit: "contain", background: "#000" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const rgba = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const palette = quantize(rgba, 256);
    gif.writeFrame(applyPalette(rgba, palette), width, height, { palette, delay: delayMs });
  }
  gif.finish();
  return Buffer.from(gif.bytes());
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".json": "application/json",
  ".gif": "image/gif",
  ".md": "text/markdown; charset=utf-8",
};

export function viewServer(lib: Library): Server {
  const gifs = new Map<string, Promise<Buffer>>();
  const runs = new Map<string, { mtime: number; view: Promise<RunView> }>();
  const loadRun = (rel: string) => {
    const folder = lib.dir(rel);
    const mtime = Math.max(
      ...["events.jsonl", "summary.json", "result.json"].map((fileName) =>
        existsSync(join(folder, fileName)) ? statSync(join(folder, fileName)).mtimeMs : 0,
      ),
    );
    const hit = runs.get(rel);
    if (hit && hit.mtime === mtime) return hit.view;
    const view = (async () => {
      const loaded = lib.run(rel);
      await lib
        .checkpoints(loaded)
        .catch((err) => loaded.notes.push(`checkpoint history not read: ${(err as Error).message}`));
      return loaded;
    })();
    runs.set(rel, { mtime, view });
    return view;
  };
  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string) => {
    res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
    res.end(body);
  };
  const json = (res: ServerResponse, x: unknown) => send(res, 200, TYPES[".json"], JSON.stringify(x));
  const file = (res: ServerResponse, filePath: string) => {
    if (!existsSync(filePath) || !statSync(filePath).isFile())
      throw new HttpError(404, `no file ${basename(filePath)}`);
    send(res, 200, TYPES[extname(filePath)] ?? "application/octet-stream", readFileSync(filePath));
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const path = decodeURIComponent(url.pathname);
    const after = (prefix: string) => path.slice(prefix.length).replace(/^\/+|\/+$/g, "");
    if (req.method !== "GET" && req.method !== "HEAD") throw new HttpError(405, "read-only viewer");
    if (path === "/" || path.startsWith("/run/") || path.startsWith("/experiment/"))
      return file(res, join(ASSETS, "index.html"));
    if (path.startsWith("/assets/")) {
      const name = after("/assets/");
      if (name === "chart.umd.min.js") return file(res, CHART_JS);
      if (!/^[\w.-]+$/.test(name)) throw new HttpError(404, "no such asset");
      return file(res, join(ASSETS, name));
    }
    if (path === "/favicon.ico") return send(res, 204, "image/x-icon", "");
    if (path === "/api/index") return json(res, lib.index());
    if (path.startsWith("/api/run/")) return json(res, await loadRun(after("/api/run/")));
    if (path.startsWith("/api/experiment/")) return json(res, lib.experiment(after("/api/experiment/")));
    if (path.startsWith("/file/")) {
      // Only a run's frames (and the detector's messages beside them) are served from its folder.
      const rest = after("/file/");
      const i = rest.lastIndexOf("/frames/");
      if (i < 0) throw new HttpError(404, "only frames are served");
      return file(res, join(lib.dir(rest.slice(0, i)), "frames", basename(rest.slice(i + 8))));
    }
    if (path.startsWith("/artifact/")) {
      const rest = after("/artifact/");
      const i = rest.lastIndexOf("/");
      const artifact = lib.artifactFile(rest.slice(0, i), rest.slice(i + 1));
      if (!artifact || !/\.(png|jpg)$/.test(artifact)) throw new HttpError(404, `no artifact ${rest.slice(i + 1)}`);
      return file(res, artifact);
    }
    if (path.startsWith("/gif/")) {
      // /gif/<run>/<camera>.gif
      const rest = after("/gif/");
      const i = rest.lastIndexOf("/");
      const rel = rest.slice(0, i);
      const camera = rest.slice(i + 1).replace(/\.gif$/, "");
      const runView = await loadRun(rel);
      const folder = lib.dir(rel);
      const files: string[] = [];
      for (const f of runView.steps.flatMap((s) => s.frames).filter((f) => f.camera === camera)) {
        const framePath = f.src?.startsWith("/file/")
          ? join(folder, "frames", basename(f.src))
          : f.ref
            ? lib.artifactFile(rel, f.ref)
            : null;
        if (framePath && files.at(-1) !== framePath) files.push(framePath);
      }
      if (!runView.cameras.includes(camera))
        throw new HttpError(
          404,
          `run ${runView.id} has no camera ${camera} (it has ${runView.cameras.join(", ") || "none"})`,
        );
      const key = `${rel}\n${camera}\n${files.length}`;
      if (!gifs.has(key))
        gifs.set(
          key,
          cameraGif(files).catch((err) => (gifs.delete(key), Promise.reject(err))),
        );
      return send(res, 200, TYPES[".gif"], await gifs.get(key)!);
    }
    throw new HttpError(404, `nothing at ${path}`);
  };
  return createServer((req, res) => {
    handle(req, res).catch((err) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (!res.headersSent) send(res, status, "text/plain; charset=utf-8", `${(err as Error).message}\n`);
      else res.end();
    });
  });
}

/** What a path given on the command line is: a run record, an experiment, or a folder of runs. */
