/**
 * rosapi's discovery services, in the request/response shapes of rosapi_msgs (what roslib's getTopics, getServices,
 * getTopicType, getServiceType, getActionServers, getNodes, … read). They list only what the allowlists let a client
 * reach, as rosapi does when rosbridge is launched with globs; the nodes are the bridge's own and the robots' given in
 * the server's options, each owning the names under its namespace.
 */
import type { Allowed } from "./auth";
import { absolute, ServiceRefusal, type ServiceHandler } from "./services";

/** What rosapi reports on: the server's topics, services and actions by name (read at each call), and its nodes. */
export interface Registry {
  topics: ReadonlyMap<string, { type: string }>;
  services: ReadonlyMap<string, { type: string }>;
  actions: ReadonlyMap<string, { type: string }>;
  allowed: Allowed;
  /** ROS node names reported besides the bridge's own (e.g. one per robot: `/mobile`). */
  nodes: string[];
  advertiseService(name: string, type: string, handler: ServiceHandler): void;
}

/** Offers rosapi's services on the server `reg` describes. */
export function advertiseRosapi(reg: Registry): void {
  const topics = () => [...reg.topics.keys()].filter(reg.allowed.topic).sort();
  const services = () => [...reg.services.keys()].filter(reg.allowed.service).sort();
  const actions = () => [...reg.actions.keys()].filter(reg.allowed.action).sort();
  const str = (args: unknown, key: string) => {
    const value = (args as Record<string, unknown> | undefined)?.[key];
    if (typeof value !== "string") throw new ServiceRefusal(`args.${key} must be a string`);
    return value;
  };
  const srv = (name: string, handler: ServiceHandler) =>
    reg.advertiseService(
      `/rosapi/${name}`,
      `rosapi_msgs/srv/${name
        .split("_")
        .map((w) => w[0].toUpperCase() + w.slice(1))
        .join("")}`,
      handler,
    );
  srv("topics", () => {
    const names = topics();
    return { topics: names, types: names.map((t) => reg.topics.get(t)!.type) };
  });
  srv("topic_type", (args) => {
    const topic = absolute(str(args, "topic"));
    return { type: reg.allowed.topic(topic) ? (reg.topics.get(topic)?.type ?? "") : "" };
  });
  srv("topics_for_type", (args) => {
    const type = str(args, "type");
    return { topics: topics().filter((t) => reg.topics.get(t)!.type === type) };
  });
  srv("services", () => ({ services: services() }));
  srv("service_type", (args) => {
    const name = absolute(str(args, "service"));
    return { type: reg.allowed.service(name) ? (reg.services.get(name)?.type ?? "") : "" };
  });
  srv("services_for_type", (args) => {
    const type = str(args, "type");
    return { services: services().filter((n) => reg.services.get(n)!.type === type) };
  });
  srv("action_servers", () => ({ action_servers: actions() }));
  srv("nodes", () => ({ nodes: ["/rosapi", "/rosbridge_websocket", ...reg.nodes].sort() }));
  srv("node_details", (args) => {
    const node = absolute(str(args, "node"));
    // A robot's node owns the names under its namespace; the bridge's own node publishes and serves the rest.
    const mine = (name: string) =>
      reg.nodes.includes(node)
        ? name.startsWith(`${node}/`)
        : node === "/rosbridge_websocket" && !reg.nodes.some((r) => name.startsWith(`${r}/`));
    return { subscribing: [], publishing: topics().filter(mine), services: services().filter(mine) };
  });
}
