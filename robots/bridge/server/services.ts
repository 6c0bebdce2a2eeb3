/**
 * Services: the handlers the server offers by name, and a client's `call_service` answered with a
 * `service_response` — `result:false` with a message when the allowlist keeps the client from the service, when there
 * is no such service, or when the handler throws (a `ServiceRefusal` says why in so many words). A relative name is
 * resolved in the root namespace, as ROS does.
 */
import type { CallServiceMsg } from "../protocol";
import type { Allowed } from "./auth";
import { short, type Connection, type Outbox } from "./connection";

/** Who called a service: the connection, its peer address, and whether that is this machine. */
export interface Caller {
  clientId: number;
  remoteAddress?: string;
  loopback: boolean;
}
export type ServiceHandler = (args: unknown, caller: Caller) => unknown | Promise<unknown>;

/** Thrown by a service handler to answer `result:false` with this message (any other throw does the same). */
export class ServiceRefusal extends Error {}

/** ROS resolves a relative name in the root namespace (roslib calls rosapi as `rosapi/topics`). */
export const absolute = (name: string) => (name.startsWith("/") ? name : `/${name}`);

export class Services {
  /** Every service the server offers, by name. */
  readonly byName = new Map<string, { type: string; handler: ServiceHandler }>();

  constructor(
    private readonly allowed: Allowed,
    private readonly out: Outbox,
  ) {}

  async onCallService(conn: Connection, message: CallServiceMsg): Promise<void> {
    const reply = (values: unknown, result: boolean) =>
      this.out.send(
        conn,
        { op: "service_response", id: message.id, service: message.service, values, result },
        message.fragment_size,
        message.id,
      );
    const name = absolute(message.service);
    if (!this.allowed.service(name)) {
      reply(`service ${short(name, 200)} is not allowed by this bridge's services allowlist`, false);
      return;
    }
    const svc = this.byName.get(name);
    if (!svc) {
      reply(`service ${message.service} does not exist`, false);
      return;
    }
    try {
      const values = await svc.handler(message.args ?? {}, {
        clientId: conn.id,
        remoteAddress: conn.remoteAddress,
        loopback: conn.loopback,
      });
      reply(values ?? {}, true);
    } catch (err) {
      reply((err as Error).message ?? String(err), false);
    }
  }
}
