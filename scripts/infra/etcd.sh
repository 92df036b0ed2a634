# etcd binaries only: kvupgrade and the tests start the members (sourced by infra.sh).
ETCD34_DIR=$INFRA_CACHE/etcd-$ETCD34_VERSION
ETCD35_DIR=$INFRA_CACHE/etcd-$ETCD35_VERSION

# Output captured first: with pipefail, `| grep -q` can fail through SIGPIPE on the writer.
etcd_has() { [ -x "$1/usr/bin/etcd" ] && [ -x "$1/usr/bin/etcdctl" ] && [[ "$("$1/usr/bin/etcd" --version 2>/dev/null)" == *"Version: $2"* ]]; }

etcd_unpack() {  # dir, then the apt-get options and package specs
  local dir=$1; shift
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && apt-get "$@") >>"$INFRA_LOGS/etcd-download.log" 2>&1 \
    || { rm -rf "$tmp"; die "etcd: apt-get $* failed; read $INFRA_LOGS/etcd-download.log"; }
  rm -rf "$dir"; mkdir -p "$dir"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dir"; done
  rm -rf "$tmp"
}

etcd_fetch() {
  if ! etcd_has "$ETCD34_DIR" "$ETCD34_VERSION"; then
    say "etcd: fetching $ETCD34_VERSION (Debian bookworm) into $ETCD34_DIR"
    if [ $APT_UPDATED = 0 ]; then apt_update_only; fi
    etcd_unpack "$ETCD34_DIR" download "etcd-server=$ETCD34_DEB_VERSION" "etcd-client=$ETCD34_DEB_VERSION"
    etcd_has "$ETCD34_DIR" "$ETCD34_VERSION" || die "etcd: $ETCD34_DIR/usr/bin/etcd is not $ETCD34_VERSION; read $INFRA_LOGS/etcd-download.log"
  fi
  if ! etcd_has "$ETCD35_DIR" "$ETCD35_VERSION"; then
    say "etcd: fetching $ETCD35_VERSION (Debian trixie) into $ETCD35_DIR"
    # A private package list for trixie, so the system's sources stay untouched.
    local apt=$INFRA_CACHE/apt-trixie
    mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    echo 'deb http://deb.debian.org/debian trixie main' >"$apt/sources.list"
    local opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent
      -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o Debug::NoLocking=1)
    apt-get "${opts[@]}" update -qq >>"$INFRA_LOGS/etcd-download.log" 2>&1 \
      || die "etcd: apt-get update for trixie failed; read $INFRA_LOGS/etcd-download.log"
    etcd_unpack "$ETCD35_DIR" "${opts[@]}" download etcd-server etcd-client
    etcd_has "$ETCD35_DIR" "$ETCD35_VERSION" || die "etcd: $ETCD35_DIR/usr/bin/etcd is not $ETCD35_VERSION; read $INFRA_LOGS/etcd-download.log"
  fi
}

# etcd releases that Debian does not package, built from the Go module proxy. Their main packages
# carry replace directives (`go install pkg@version` refuses them), so a small module of our own
# imports etcdmain and ctlv3, and takes etcdutl's main package from the module cache.
ETCD_BUILT_VERSIONS=(${ETCD_BUILT_VERSIONS:-3.5.35 3.6.16 3.7.3})
etcd_built_dir() { echo "$INFRA_CACHE/etcd-$1"; }

etcd_build() {  # version
  local version=$1 dir; dir=$(etcd_built_dir "$1")
  etcd_has "$dir" "$version" && [ -x "$dir/usr/bin/etcdutl" ] && return 0
  command -v go >/dev/null || die "etcd $version: Go is needed to build it (https://go.dev/dl or the golang package); then run infra.sh up again"
  say "etcd: building $version from the Go module proxy into $dir (once; a few minutes)"
  local work; work=$(mktemp -d "$INFRA_CACHE/.etcd-$version.XXXXXX")
  local log=$INFRA_LOGS/etcd-build-$version.log
  mkdir -p "$work/etcd" "$work/etcdctl" "$work/etcdutl" "$work/out/usr/bin"
  printf 'module backbone.local/etcd-%s\n\ngo 1.24\n' "$version" >"$work/go.mod"
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$work/etcd/main.go"
  printf 'package main\n\nimport "go.etcd.io/etcd/etcdctl/v3/ctlv3"\n\nfunc main() { ctlv3.MustStart() }\n' >"$work/etcdctl/main.go"
  # GOTOOLCHAIN=local: no toolchain download; CGO off: a static binary like the released ones.
  if ! (
    cd "$work" && export GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 GOWORK=off
    go get "go.etcd.io/etcd/server/v3@v$version" "go.etcd.io/etcd/etcdctl/v3@v$version" "go.etcd.io/etcd/etcdutl/v3@v$version" \
      && utl=$(go list -m -f '{{.Dir}}' go.etcd.io/etcd/etcdutl/v3) \
      && for f in "$utl"/*.go; do case $f in *_test.go) ;; *) grep -q '^package main' "$f" && cp "$f" etcdutl/ ;; esac; done \
      && chmod u+w etcdutl/*.go && go mod tidy \
      && go build -trimpath -ldflags=-s -o out/usr/bin/ ./etcd ./etcdctl ./etcdutl
  ) >"$log" 2>&1; then
    rm -rf "$work"; die "etcd $version: the build failed; read $log"
  fi
  # Another run may have built it meanwhile: the first complete one stays.
  if etcd_has "$dir" "$version"; then rm -rf "$work"; return 0; fi
  rm -rf "$dir"; mv "$work/out" "$dir"; rm -rf "$work"
  etcd_has "$dir" "$version" || die "etcd: $dir/usr/bin/etcd is not $version; read $log"
}

etcd_build_all() { local v; for v in "${ETCD_BUILT_VERSIONS[@]}"; do etcd_build "$v"; done; }

# version=dir for every release in the cache, for clients (infra.sh env).
etcd_releases() {
  local out=() v
  for v in "$ETCD34_VERSION" "$ETCD35_VERSION" "${ETCD_BUILT_VERSIONS[@]}"; do
    out+=("$v=$INFRA_CACHE/etcd-$v/usr/bin")
  done
  (IFS=,; echo "${out[*]}")
}
