#!/bin/bash
# zkServer.sh start-foreground, as the official image's CMD runs it: the
# server in the foreground with JVMFLAGS, logging to the console. Debian's
# zookeeper.jar names its dependencies in its manifest.
set -euo pipefail
case "${1:-}" in
  start-foreground) ;;
  *) echo "this image's zkServer.sh knows only start-foreground" >&2; exit 2 ;;
esac
cp=/usr/share/java/zookeeper.jar
[ -f /usr/share/java/slf4j-simple.jar ] && cp="$cp:/usr/share/java/slf4j-simple.jar"
# shellcheck disable=SC2086 # JVMFLAGS is a list of flags
exec java ${JVMFLAGS:-} -Dzookeeper.log.dir="$ZOO_LOG_DIR" -cp "$cp" \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$ZOO_CONF_DIR/zoo.cfg"
