#!/usr/bin/env bash
# Builds a ROS 1 workspace with the reference rosbridge_server (RobotWebTools/rosbridge_suite, branch ros1,
# commit 55a6bdb) and rosauth (GT-RAIL/rosauth, develop, c2a5908) on Debian 12, from the tarballs beside this
# script and Debian's own ROS 1 packages. Usage: setup.sh [WORKSPACE_DIR] [EXTRA_CATKIN_PACKAGE_DIR...]
#   WORKSPACE_DIR defaults to ${ROBOGRAPH_ROS_WS:-$HOME/.cache/robograph-ros-ws}.
#   Each EXTRA_CATKIN_PACKAGE_DIR (e.g. a message package of the project) is copied into src/ and built too.
# Prints the workspace path last. Idempotent: a second run only rebuilds.
# Measured on this kind of machine: apt ~35 s, catkin_make ~35 s.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ws="${1:-${ROBOGRAPH_ROS_WS:-$HOME/.cache/robograph-ros-ws}}"
shift || true
SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
pkgs="ros-core ros-core-dev ros-message-generation ros-message-runtime python3-rospy python3-rosmaster python3-roslaunch
python3-rosservice catkin python3-catkin python3-genpy python3-genmsg ros-std-msgs ros-std-srvs ros-sensor-msgs
ros-geometry-msgs ros-actionlib-msgs python3-sensor-msgs python3-std-srvs python3-actionlib python3-move-base-msgs libmove-base-msgs-dev python3-tornado python3-twisted python3-autobahn python3-bson
python3-pil libssl-dev"
missing=$(for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
  # shellcheck disable=SC2086
  $SUDO apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
    $SUDO apt-get update >/dev/null && $SUDO apt-get install -y --no-install-recommends $missing >/dev/null; }
fi
mkdir -p "$ws/src"
[ -d "$ws/src/rosbridge_suite" ] || tar -xzf "$here/rosbridge_suite-ros1.tar.gz" -C "$ws/src"
[ -d "$ws/src/rosauth" ] || tar -xzf "$here/rosauth.tar.gz" -C "$ws/src"
for extra in "$@"; do
  # A copy, not a link: the workspace outlives the checkout that built it (a CI clone, a removed worktree), and a link
  # into a removed checkout leaves the message package's services unfound.
  dest="$ws/src/$(basename "$extra")"
  rm -rf "$dest"
  cp -a "$(cd "$extra" && pwd)" "$dest"
done
# Debian's ROS is built for Debian's python3, not for any other python3 earlier on PATH.
( cd "$ws" && PATH="/usr/bin:$PATH" catkin_make -DCATKIN_ENABLE_TESTING=OFF -DPYTHON_EXECUTABLE=/usr/bin/python3 >"$ws/build.log" 2>&1 ) || {
  tail -n 30 "$ws/build.log" >&2; echo "catkin_make failed: $ws/build.log" >&2; exit 1; }
echo "$ws"
