#!/usr/bin/env bash
# Builds the module for each host and runs test/punctual_test.lua under it,
# test/cheat_engine_test.lua (examples/cheat-engine/ with Cheat Engine emulated) and
# test/rt_test.lua (the real-time controls, as root for real); then installs it
# with `luarocks make` into a scratch tree and loads it from there.
#   clients/lua/run-tests.sh [HOST...]    HOST: 5.1 5.3 5.4 jit win53 win53-32 luarocks
#                                         (default: all)
# win53 is Windows' Lua 5.3 under Wine: lua53-64.dll and lua.exe built from Lua's sources by
# windows/build-lua.sh, the module as punctual.dll beside them (Cheat Engine's layout).
# win53-32 is the same for 32-bit Cheat Engine: lua53-32.dll, a 32-bit lua.exe and the
# i686 punctual.dll, under 32-bit Wine (Debian's wine32:i386; see .ci/wine/run).
# PROFILE=release to test optimised builds (dev by default, as cargo test does).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PROFILE=${PROFILE:-dev}
hosts=("$@")
[ ${#hosts[@]} -gt 0 ] || hosts=(5.1 5.3 5.4 jit win53 win53-32 luarocks)
target_dir=$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | jq -r .target_directory)
out="$target_dir/lua-test"
test_script="$here/test/punctual_test.lua"
# examples/cheat-engine/ under emulated Cheat Engine functions, on every host.
examples_script="$here/test/cheat_engine_test.lua"
rt_script="$here/test/rt_test.lua"

for host in "${hosts[@]}"; do
  printf -- '-- Lua module under %s\n' "$host"
  case $host in
    5.1 | 5.3 | 5.4 | jit)
      lua=$([ "$host" = jit ] && echo luajit || echo "lua$host")
      "$here/build.sh" "$host" "$out/$host"
      (cd "$out/$host" && "$lua" "$test_script" && "$lua" "$examples_script" && "$lua" "$rt_script")
      ;;
    win53 | win53-32)
      bits=$([ "$host" = win53 ] && echo 64 || echo 32)
      [ -f "$out/$host/lua.exe" ] && [ -f "$out/$host/lua53-$bits.dll" ] ||
        "$here/windows/build-lua.sh" "$out/$host" "--$bits"
      "$here/build.sh" "$host" "$out/$host"
      (cd "$out/$host" && "$root/.ci/wine/run" ./lua.exe "$test_script" &&
        "$root/.ci/wine/run" ./lua.exe "$examples_script" && "$root/.ci/wine/run" ./lua.exe "$rt_script")
      ;;
    luarocks)
      tree="$out/luarocks-tree"
      rm -rf "$tree"
      (cd "$here" && luarocks --lua-version 5.4 --tree "$tree" make >/dev/null)
      found=$(cd / && eval "$(luarocks --lua-version 5.4 --tree "$tree" path)" &&
        lua5.4 -e 'local p = require "punctual"; p.sleep(1); io.write(package.searchpath("punctual", package.cpath), " ", p.version)')
      case $found in
        "$tree"/*) echo "luarocks make: installed and loaded $found" ;;
        *) echo "luarocks make: punctual loaded from '$found', not from the tree" >&2; exit 1 ;;
      esac
      # luarocks installs the source folder's *.md as the rock's docs (`luarocks doc`).
      docs=$(find "$tree" -path '*/punctual/*/doc/CHANGELOG.md')
      [ -n "$docs" ] || { echo "luarocks make: the rock has no doc/CHANGELOG.md" >&2; exit 1; }
      echo "luarocks make: the rock's docs carry ${docs#"$tree"/}"
      ;;
    *) echo "run-tests.sh: unknown host '$host'" >&2; exit 2 ;;
  esac
done
