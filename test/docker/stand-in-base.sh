#!/usr/bin/env bash
# Loads a stand-in for node:20-bookworm-slim into the Docker engine at $DOCKER_HOST when the real image can be
# neither found locally nor pulled (a network without Docker Hub): Debian bookworm (debootstrap --variant=minbase,
# from Debian's mirror) plus this machine's Node 20 laid out as in the official image (node, npm and npx in
# /usr/local/bin, npm in /usr/local/lib/node_modules, headers in /usr/local/include/node) and a `node` user of
# uid/gid 1000. When npm here trusts a CA file of its own (a TLS-inspecting proxy in front of the registry), the
# stand-in trusts it too, as a site's mirrored base image carries the site's CA. The image stays in the engine's
# data root, so the next run finds it at once.
set -euo pipefail
image=${1:-node:20-bookworm-slim}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if docker image inspect "$image" >/dev/null 2>&1; then echo "base image $image: present"; exit 0; fi
if timeout 60 docker pull "$image" >/dev/null 2>&1; then echo "base image $image: pulled"; exit 0; fi

node_bin=$(command -v node)
node_major=$("$node_bin" -p 'process.versions.node.split(".")[0]')
[ "$node_major" = 20 ] || { echo "the stand-in needs this machine's Node to be 20, found $("$node_bin" --version)"; exit 1; }
node_root=$(cd "$(dirname "$(readlink -f "$node_bin")")/.." && pwd)
npm_dir=$node_root/lib/node_modules/npm
headers=$node_root/include/node
[ -d "$npm_dir" ] && [ -f "$headers/node_version.h" ] || { echo "npm or Node's headers not found under $node_root"; exit 1; }
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (Debian package debootstrap)"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
echo "base image $image: not available, building a stand-in from Debian bookworm and Node $("$node_bin" --version)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
  tail -n 20 "$work/debootstrap.log"; exit 1; }
cat >"$root/etc/apt/sources.list" <<SOURCES
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/include"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
cp -a "$headers" "$root/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
echo 'node:x:1000:' >>"$root/etc/group"
echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$root/etc/passwd"
echo 'node:*:19000:0:99999:7:::' >>"$root/etc/shadow"
install -d -o 1000 -g 1000 "$root/home/node"
cafile=$(npm config get cafile 2>/dev/null || true)
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then
  install -D -m 0644 "$cafile" "$root/usr/local/share/supply-sync-test/ca.pem"
  echo "cafile=/usr/local/share/supply-sync-test/ca.pem" >"$root/usr/local/etc/npmrc"
fi
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
tar -C "$root" -c . | docker import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$("$node_bin" -p process.versions.node)" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "base image $image: stand-in loaded"
