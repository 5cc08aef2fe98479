#!/usr/bin/env bash
# Debian packages the tests and benchmarks drive: Chromium (browser tests), nginx (the caching
# proxy test) and wrk (the load benchmark). Installs only what is missing; needs root or sudo.
set -euo pipefail

want=()
command -v chromium >/dev/null 2>&1 || want+=(chromium)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || want+=(nginx-light)
command -v wrk >/dev/null 2>&1 || want+=(wrk)
[ ${#want[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "system-deps: need root or sudo to install: ${want[*]}" >&2
  exit 1
fi
echo "system-deps: installing ${want[*]}" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
