/**
 * A TCP proxy on a free loopback port in front of a server, that a test can take down (every connection cut, new ones
 * refused) and bring back up: a network outage between an agent and its robot, with both processes still alive.
 */
import { createServer, connect, type Socket } from "node:net";

export interface TcpProxy {
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host?: string; port: number }, scheme = "ws"): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let isUp = true;
  const server = createServer((inbound) => {
    if (!isUp) return inbound.destroy();
    const outbound = connect(target.port, target.host ?? "127.0.0.1");
    for (const [a, b] of [
      [inbound, outbound],
      [outbound, inbound],
    ] as const) {
      open.add(a);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    down() {
      isUp = false;
      for (const s of open) s.destroy();
    },
    up() {
      isUp = true;
    },
    close() {
      for (const s of open) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
