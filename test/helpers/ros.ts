/** The reference ROS 1 stack for tests (robots/sim/rosStack.ts); skipped with a reason when not built. */
export { requireRosOrSkip, rosMissing, startRos, type RosStack, ROS_WS } from "../../robots/sim/rosStack";
