#!/usr/bin/env bash
# The container image (issue 40): one OCI image with every program, from a clone after `npm ci`.
#   image.sh build [TAG...]   build; default tags localhost/backbone:<version> and :latest, and
#                             :<version>-earlystopping (the same image starting the EarlyStopping role)
#   image.sh ensure TAG       build into TAG (and TAG-earlystopping) unless TAG exists: the tests
#                             tag by the inputs' hash, so an unchanged tree is built once
#   image.sh key              that hash: every file the image is made from, and the Node version
#   image.sh tools            install podman and runc (Debian packages) when missing
# podman runs with scripts/image/containers.conf unless CONTAINERS_CONF is set.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
INFRA_CACHE=${INFRA_CACHE:-$ROOT/.infra/cache}
INFRA_LOGS=${INFRA_LOGS:-$ROOT/.infra/logs}
WORK=$ROOT/.build/image
export CONTAINERS_CONF=${CONTAINERS_CONF:-$ROOT/scripts/image/containers.conf}
NODE=$ROOT/node_modules/.bin/node
IMAGE_NAME=${IMAGE_NAME:-localhost/backbone}
# What the image is made from: the key of `ensure` hashes these (tracked and untracked files alike).
INPUTS=(services shared proto schemas scripts/build.ts scripts/image.sh scripts/image package.json package-lock.json tsconfig.json tsconfig.build.json)

say() { printf 'image: %s\n' "$*" >&2; }
die() { printf 'image: ERROR: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }
mkdir -p "$INFRA_LOGS" "$INFRA_CACHE"
# shellcheck source=/dev/null
source "$ROOT/scripts/infra/packages.sh"
for part in base app; do
  # shellcheck source=/dev/null
  source "$ROOT/scripts/image/$part.sh"
done

ensure_tools() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v strip >/dev/null || missing+=(binutils)
  command -v dpkg-deb >/dev/null || missing+=(dpkg)
  apt_install "${missing[@]}"
}

input_key() {
  [ -x "$NODE" ] || die "no $NODE: run npm ci first"
  (
    cd "$ROOT"
    git ls-files -co --exclude-standard -z -- "${INPUTS[@]}" | LC_ALL=C sort -z | xargs -0 sha256sum
    "$NODE" --version
  ) | sha256sum | cut -c1-16
}

package_version() { "$NODE" -p "require('$ROOT/package.json').version"; }

build_image() {  # tags...
  local tags=("$@") version; version=$(cd "$ROOT" && package_version)
  [ ${#tags[@]} -gt 0 ] || tags=("$IMAGE_NAME:$version" "$IMAGE_NAME:latest")
  ensure_tools
  mkdir -p "$WORK"
  exec 9>"$WORK.lock"
  flock 9 # one build at a time in this checkout: they share the context folder
  local context=$WORK/context started=$SECONDS
  rm -rf "$context"; mkdir -p "$context/data/experiment"
  make_base "$context/base"
  make_node "$context/node"
  make_app "$context/app"
  local revision source created
  revision=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)
  [ -z "$(git -C "$ROOT" status --porcelain -- "${INPUTS[@]}" 2>/dev/null)" ] || revision="$revision-dirty"
  source=${IMAGE_SOURCE:-$(git -C "$ROOT" config --get remote.origin.url 2>/dev/null || echo "backbone $version")}
  created=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  local oci=org.opencontainers.image
  local args=(--label "$oci.version=$version" --label "$oci.revision=$revision" --label "$oci.source=$source"
    --label "$oci.created=$created" --label "io.backbone.node.version=$("$context/node" --version)"
    --label "$oci.base.name=debian:bookworm packages ($(cat "$context/base.packages"))"
    -f "$ROOT/scripts/image/Containerfile" --layers --ignorefile /dev/null)
  local tag_args=() es_args=() tag
  for tag in "${tags[@]}"; do tag_args+=(-t "$tag"); done
  es_args+=(-t "${tags[0]}-earlystopping")
  say "podman build ${tags[*]}"
  podman build -q "${args[@]}" "${tag_args[@]}" "$context" >"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log" >&2; die "podman build failed"; }
  rm -rf "$context"; mkdir -p "$context"
  podman build -q -f "$ROOT/scripts/image/Containerfile.earlystopping" --build-arg "BASE=${tags[0]}" \
    "${es_args[@]}" "$context" >>"$WORK/build.log" 2>&1 \
    || { cat "$WORK/build.log" >&2; die "podman build (earlystopping) failed"; }
  rm -rf "$context"
  say "built ${tags[*]} and ${tags[0]}-earlystopping in $((SECONDS - started)) s: $(podman image inspect --format '{{.Size}}' "${tags[0]}") bytes"
}

main() {
  local cmd=${1:-build}; shift || true
  case $cmd in
    build) build_image "$@" ;;
    ensure)
      [ $# -eq 1 ] || die "usage: image.sh ensure TAG"
      ensure_tools
      if podman image exists "$1" && podman image exists "$1-earlystopping"; then say "$1 exists"; else build_image "$1"; fi ;;
    key) input_key ;;
    tools) ensure_tools ;;
    *) die "unknown command '$cmd' (build, ensure, key, tools)" ;;
  esac
}

main "$@"
