#!/usr/bin/env bash
# What `make install` runs (after the release build): the executables of BIN_DIR into PREFIX/bin and
# the shared files into PREFIX/share/pushline, laid out as in the repository (Config/…, Pipelines/…),
# where the installed executables look for them (docs/operations.md, "Installing").
# Usage: scripts/install.sh BIN_DIR PREFIX
set -euo pipefail
if [ $# -ne 2 ] || [ -z "$1" ] || [ -z "$2" ]; then
  echo "usage: scripts/install.sh BIN_DIR PREFIX (make install PREFIX=… runs it)" >&2
  exit 2
fi
bin=$1
prefix=$2
repository=$(cd "$(dirname "$0")/.." && pwd)
for executable in pushline pushline-dev apns-sim; do
  if [ ! -x "$bin/$executable" ]; then
    echo "scripts/install.sh: $bin/$executable was not built (make build builds it)" >&2
    exit 1
  fi
done
share=$prefix/share/pushline
install -d "$prefix/bin" "$share/Config" "$share/Pipelines"
install -m 755 "$bin/pushline" "$bin/pushline-dev" "$bin/apns-sim" "$prefix/bin/"
install -m 644 "$repository/Config/pushline.yaml" "$share/Config/"
for folder in Config/schemas Config/templates Config/locales Config/dev Config/examples Config/prometheus Config/grafana Pipelines; do
  install -d "$share/$folder"
  cp -R "$repository/$folder/." "$share/$folder/"
done
echo "installed pushline, pushline-dev and apns-sim in $prefix/bin, the shared files in $share" >&2
