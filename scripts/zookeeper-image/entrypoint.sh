#!/bin/bash
# The official zookeeper image's environment contract, written for lockstep's
# stand-in image: a zoo.cfg made from the ZOO_* variables when the
# configuration directory has none, a myid when the data directory has none,
# then the command as the zookeeper user.
set -euo pipefail

if [ "$(id -u)" = 0 ] && [ "${1:-}" = zkServer.sh ]; then
  chown -R zookeeper:zookeeper "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR" "$ZOO_CONF_DIR"
  exec setpriv --reuid=zookeeper --regid=zookeeper --init-groups "$0" "$@"
fi

cfg="$ZOO_CONF_DIR/zoo.cfg"
if [ ! -f "$cfg" ]; then
  {
    printf 'dataDir=%s\ndataLogDir=%s\n' "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR"
    printf 'tickTime=%s\ninitLimit=%s\nsyncLimit=%s\n' "$ZOO_TICK_TIME" "$ZOO_INIT_LIMIT" "$ZOO_SYNC_LIMIT"
    printf 'autopurge.snapRetainCount=%s\nautopurge.purgeInterval=%s\n' "$ZOO_AUTOPURGE_SNAPRETAINCOUNT" "$ZOO_AUTOPURGE_PURGEINTERVAL"
    printf 'maxClientCnxns=%s\nstandaloneEnabled=%s\nadmin.enableServer=%s\n' "$ZOO_MAX_CLIENT_CNXNS" "$ZOO_STANDALONE_ENABLED" "$ZOO_ADMINSERVER_ENABLED"
    # ZOO_SERVERS: space-separated server.N=host:quorum:election;client entries.
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do echo "$server"; done
    if [ -n "${ZOO_4LW_COMMANDS_WHITELIST:-}" ]; then echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"; fi
    # ZOO_CFG_EXTRA: space-separated key=value lines added as they are.
    for line in ${ZOO_CFG_EXTRA:-}; do echo "$line"; done
  } > "$cfg"
fi
if [ ! -f "$ZOO_DATA_DIR/myid" ]; then
  echo "${ZOO_MY_ID:-1}" > "$ZOO_DATA_DIR/myid"
fi
exec "$@"
