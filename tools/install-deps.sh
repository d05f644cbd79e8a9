#!/usr/bin/env bash
# Install the Debian packages listed in tools/deps.txt that are missing.
# As root: prints the missing list, then installs it with apt-get.
# Otherwise: prints the exact apt-get line to run and exits 1.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/deps.txt")
missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "deps: all ${#wanted[@]} Debian packages from tools/deps.txt are installed"
  exit 0
fi
line="apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=600 ${missing[*]}"
echo "deps: missing ${#missing[@]} of ${#wanted[@]} packages: ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "deps: not root; run as root:"
  echo "  apt-get update && $line"
  exit 1
fi
echo "deps: installing (torch and chromium are large: a few minutes on a fresh machine)"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q -o DPkg::Lock::Timeout=600
apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
echo "deps: installed ${missing[*]}"
