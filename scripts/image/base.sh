# The image's root file system from Debian bookworm's packages (sourced by scripts/image.sh): only
# what Node needs at run time, as distroless images do. No dpkg, apt, shell or coreutils: the
# packages are unpacked with dpkg-deb on the host, their control files kept under
# /var/lib/dpkg/status.d so scanners (Trivy, Grype) still see what is inside.
# Node links libc, libm, libdl, libpthread (libc6), libstdc++ (libstdc++6) and libgcc_s (libgcc-s1).
BASE_PACKAGES=(libc6 libgcc-s1 libstdc++6)
# Only a file or two of these: the CA bundle, os-release.
BASE_EXTRAS=(ca-certificates base-files)

base_apt() {  # apt-get with a private bookworm list, so the host's sources stay untouched
  local apt=$INFRA_CACHE/image-apt
  mkdir -p "$apt/lists/partial" "$apt/archives/partial"
  printf '%s\n' 'deb http://deb.debian.org/debian bookworm main' \
    'deb http://deb.debian.org/debian bookworm-updates main' \
    'deb http://deb.debian.org/debian-security bookworm-security main' >"$apt/sources.list"
  apt-get -o "Dir::Etc::SourceList=$apt/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o Debug::NoLocking=1 \
    -o APT::Sandbox::User=root "$@"
}

make_base() {  # rootfs folder; writes <rootfs>.packages (name=version list)
  local root=$1 debs; debs=$(mktemp -d)
  local lists=$INFRA_CACHE/image-apt/lists
  # Security updates matter in an image: the lists are refreshed when a day old.
  if [ -z "$(find "$lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -n 1)" ]; then
    say "apt-get update (bookworm lists for the image)"
    base_apt update -qq >>"$INFRA_LOGS/image-apt.log" 2>&1 || die "apt-get update failed; read $INFRA_LOGS/image-apt.log"
  fi
  (cd "$debs" && base_apt download "${BASE_PACKAGES[@]}" "${BASE_EXTRAS[@]}") >>"$INFRA_LOGS/image-apt.log" 2>&1 \
    || die "apt-get download failed; read $INFRA_LOGS/image-apt.log"
  rm -rf "$root"; mkdir -p "$root/var/lib/dpkg/status.d" "$root/etc/ssl/certs" "$root/tmp" "$root/usr/lib"
  local pkg deb extras=$debs/extras
  for pkg in "${BASE_PACKAGES[@]}"; do
    deb=$(ls "$debs/${pkg}_"*.deb)
    dpkg-deb -x "$deb" "$root"
    dpkg-deb -f "$deb" >"$root/var/lib/dpkg/status.d/$pkg"
  done
  mkdir -p "$extras"
  for pkg in "${BASE_EXTRAS[@]}"; do dpkg-deb -x "$(ls "$debs/${pkg}_"*.deb)" "$extras"; done
  # What update-ca-certificates would make: the Mozilla certificates in one bundle.
  cat "$extras"/usr/share/ca-certificates/mozilla/*.crt >"$root/etc/ssl/certs/ca-certificates.crt"
  cp "$extras/usr/lib/os-release" "$root/usr/lib/os-release"
  ln -s ../usr/lib/os-release "$root/etc/os-release"
  # Not needed by Node: iconv modules (Node has ICU), messages in other languages, docs but the
  # copyright files, lintian and gdb hooks.
  rm -rf "$root"/usr/lib/x86_64-linux-gnu/gconv "$root"/usr/share/{locale,lintian,gdb,gcc,info,man}
  find "$root/usr/share/doc" -type f ! -name copyright -delete
  find "$root/usr/share/doc" -type l -delete
  printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'backbone:x:65532:65532:backbone:/app:/sbin/nologin' >"$root/etc/passwd"
  printf '%s\n' 'root:x:0:' 'backbone:x:65532:' >"$root/etc/group"
  # Kubernetes and podman mount /etc/hosts and /etc/resolv.conf; glibc reads the files first.
  printf '%s\n' 'hosts: files dns' >"$root/etc/nsswitch.conf"
  chmod 1777 "$root/tmp"
  local versions=()
  for pkg in "${BASE_PACKAGES[@]}" "${BASE_EXTRAS[@]}"; do
    versions+=("$pkg=$(dpkg-deb -f "$(ls "$debs/${pkg}_"*.deb)" Version)")
  done
  echo "${versions[*]}" >"$root.packages"
  rm -rf "$debs"
}
