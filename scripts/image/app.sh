# Node and the application for the image (sourced by scripts/image.sh).

make_node() {  # target file
  local from; from=$(readlink -f "$NODE")
  local want; want=$("$NODE" -p "require('$ROOT/package-lock.json').packages['node_modules/node'].version")
  [ "$("$NODE" --version)" = "v$want" ] || die "$NODE is not the locked Node $want: run npm ci"
  # Debian strips its binaries the same way: the symbols V8's profiles and N-API addons use are in
  # the dynamic table, which stays (126 -> 108 MB).
  strip --strip-all -o "$1" "$from"
}

make_app() {  # target folder
  local app=$1
  mkdir -p "$app"
  say "building dist/"
  "$NODE" --input-type=module -e "const { build } = await import('$ROOT/scripts/build.ts'); build('$app/dist');" \
    || die "npm run build failed"
  cp "$ROOT/package.json" "$ROOT/package-lock.json" "$app/"
  say "installing the production dependencies"
  (cd "$app" && PATH="$ROOT/node_modules/.bin:$PATH" npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefer-offline \
    >>"$INFRA_LOGS/image-npm.log" 2>&1) || die "npm ci --omit=dev failed; read $INFRA_LOGS/image-npm.log"
  prune_modules "$app/node_modules"
  rm -f "$app/package-lock.json" "$app/node_modules/.package-lock.json"
  find "$app/dist" -name '*.map' -delete
}

# What no program loads at run time: type declarations, source maps, documents (licenses stay).
prune_modules() {
  local modules=$1
  rm -rf "$modules/@types" "$modules/.bin"
  find "$modules" -type f \( -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' -o -name '*.map' \
    -o -iname '*.md' -o -iname '*.markdown' -o -name '*.ts.map' \) ! -iname 'license*' ! -iname 'notice*' -delete
  # The web page is served echarts.min.js (self-contained, zrender inside) and resolves the
  # package's main file to find it; nothing loads echarts or zrender in Node.
  local keep
  for keep in echarts zrender; do
    [ -d "$modules/$keep" ] || continue
    find "$modules/$keep" -type f ! -name package.json ! -iname 'license*' ! -iname 'notice*' \
      ! -path "$modules/echarts/dist/echarts.js" ! -path "$modules/echarts/dist/echarts.min.js" -delete
  done
  find "$modules" -type d -empty -delete
}
