#!/usr/bin/env bash
# Installs the Debian packages that Pushline's build, tests and demo need, when they are missing.
# Quiet when everything is present; runs `apt-get update` only when something must be installed.
set -euo pipefail

packages=(
  # build: C libraries behind the system-library targets
  pkg-config
  librdkafka-dev
  libnghttp2-dev
  libssl-dev
  libhiredis-dev
  libmicrohttpd-dev
  libicu-dev
  libyaml-dev
  # linked into pushline instead of glibc's malloc (docs/BENCHMARKS.md, the pipeline's third round)
  libjemalloc-dev
  # tests and the demo: real peers and tools
  redis-server
  redis-tools
  nghttp2-client
  nghttp2-server
  curl
  kcat
  prometheus
  openssl
  # nm: the test that the production pushline links no simulator, local stack or benchmark (InstallTests)
  binutils
  # JSON Schema checks of the documented event formats (tests)
  python3-jsonschema
  # the venv that holds duckdb for docs/analytics.md's queries (tests; below)
  python3-venv
  # the independent AES-GCM implementation that opens what Pushline sealed (docs/service-extension.md)
  python3-cryptography
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    sudo=sudo
  else
    sudo=
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

# The duckdb Python package (PyPI; Debian has none) in a venv of the project's own, for the test that
# runs every query of docs/analytics.md (scripts/analytics-sql.py).
venv="$(dirname "$0")/../.build/analytics-venv"
if ! "$venv/bin/python" -c 'import duckdb' 2>/dev/null; then
  echo "setup: installing duckdb (PyPI) into .build/analytics-venv" >&2
  /usr/bin/python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check 'duckdb==2.0.1' >&2
fi
