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
