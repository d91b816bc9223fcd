#!/bin/sh
# The image's start (Dockerfile CMD): the server, under Litestream when LITESTREAM_REPLICA_URL names
# a replica for the SQLite database. A data folder without a database (a new disk) is first restored
# from the replica, so the leads acknowledged before the old disk died are back before the server
# answers. Litestream passes SIGTERM on to the server. A write of the last second before a stop may
# reach the replica only when Litestream next runs on this disk (docs/deployment.md).
set -eu
# What holds a lead (the database Litestream restores, its WAL, the email files) is the owner's alone.
umask 077
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${LITESTREAM_REPLICA_URL:-}" ] && [ -z "${DATABASE_URL:-}" ]; then
  # The binary itself (its npm wrapper would not pass signals on), from @flydotio/litestream.
  litestream="$here/node_modules/@flydotio/litestream-$(node -p 'process.platform + "-" + process.arch')/litestream"
  config="$here/deploy/litestream.yml"
  mkdir -p "$DATA_DIR"
  "$litestream" restore -config "$config" -if-db-not-exists -if-replica-exists "$DATA_DIR/inquiries.sqlite"
  exec "$litestream" replicate -config "$config" -exec "node $here/server.js"
fi
# Arguments go to the server (a test's --tuning=JSON).
exec node "$here/server.js" "$@"
