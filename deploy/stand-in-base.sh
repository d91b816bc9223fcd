#!/usr/bin/env bash
# A stand-in for the official node:24-bookworm-slim image, for machines that reach no container
# registry: Debian bookworm (debootstrap, minbase), the Node 24 that `npm install` put in
# node_modules, the machine's npm, a `node` user (1000:1000), and the CA bundle that
# NODE_EXTRA_CA_CERTS names (the npm registry may be reached through a TLS proxy). Tagged with the
# official image's name, so the Dockerfile builds unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
TAG="docker.io/library/node:24-bookworm-slim"
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)
if "${PODMAN[@]}" image exists "$TAG"; then echo "stand-in base: $TAG exists"; exit 0; fi
ROOT="$(mktemp -d /var/tmp/stand-in-XXXXXX)"
trap 'rm -rf "$ROOT"' EXIT
debootstrap --variant=minbase bookworm "$ROOT" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >/dev/null
install -m 0755 node_modules/node/bin/node "$ROOT/usr/local/bin/node"
NPM_DIR="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
mkdir -p "$ROOT/usr/local/lib/node_modules"
cp -a "$NPM_DIR" "$ROOT/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ROOT/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ROOT/usr/local/bin/npx"
CA="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
mkdir -p "$ROOT$(dirname "$CA")"
cp "$CA" "$ROOT$CA"
chroot "$ROOT" groupadd --gid 1000 node
chroot "$ROOT" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
tar -C "$ROOT" -c . | "${PODMAN[@]}" import \
  --change "ENV NODE_EXTRA_CA_CERTS=$CA" \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change 'CMD ["node"]' \
  - "$TAG" >/dev/null
echo "stand-in base: $TAG built ($("${PODMAN[@]}" run --rm --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$TAG" node --version))"
