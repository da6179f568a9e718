#!/usr/bin/env bash
# Builds the Lua module for one Lua version into OUTDIR:
#   clients/lua/build.sh 5.1|5.3|5.4|jit OUTDIR   ->  OUTDIR/punctual.so
#   clients/lua/build.sh win53 OUTDIR             ->  OUTDIR/punctual.dll (64-bit Windows, Lua 5.3)
#   clients/lua/build.sh win53-32 OUTDIR          ->  OUTDIR/punctual.dll (32-bit Windows, Lua 5.3)
#   clients/lua/build.sh /path/to/lua OUTDIR      ->  for that interpreter's version (luarocks)
# Each Lua version is a separate build of the same crate (mlua links one Lua API).
#
# On Linux the module leaves the Lua C API undefined and the host's lua binary supplies it.
# On Windows a DLL must name the DLL its imports come from: win53 (x86_64-pc-windows-gnu)
# links against an import library for lua53-64.dll, the Lua of 64-bit Cheat Engine 7.x, and
# win53-32 (i686-pc-windows-gnu) against one for lua53-32.dll, 32-bit Cheat Engine's; both
# are made with that target's dlltool from windows/lua53.def. LUA_DLL=NAME names another host
# DLL (lua53, lua5.3, ...).
# PROFILE=dev builds unoptimised (release by default). GLIBC=2.17 links a Linux module against
# that glibc with cargo-zigbuild (as scripts/release does), in a target directory of its own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=${1:?usage: build.sh 5.1|5.3|5.4|jit|win53|win53-32 OUTDIR}
out=${2:?usage: build.sh 5.1|5.3|5.4|jit|win53|win53-32 OUTDIR}
profile=${PROFILE:-release}
cargo=${CARGO:-cargo}

if [ -x "$version" ] && [ ! -d "$version" ]; then
  version=$("$version" -e 'io.write(jit and "jit" or (_VERSION:gsub("^Lua ", "")))')
fi
case $version in
  5.1) feature=lua51 ;;
  5.3 | win53 | win53-32) feature=lua53 ;;
  5.4) feature=lua54 ;;
  jit) feature=luajit ;;
  *) echo "build.sh: unknown Lua version '$version' (5.1, 5.3, 5.4, jit, win53 or win53-32)" >&2; exit 2 ;;
esac

target_dir=$("$cargo" metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" | jq -r .target_directory)
profile_dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
args=(build --manifest-path "$here/Cargo.toml" --lib --profile "$profile" --no-default-features --features "$feature")
mkdir -p "$out"

case $version in
  win53) target=x86_64-pc-windows-gnu tools=x86_64-w64-mingw32 dll=${LUA_DLL:-lua53-64} bits=64 ;;
  win53-32) target=i686-pc-windows-gnu tools=i686-w64-mingw32 dll=${LUA_DLL:-lua53-32} bits=32 ;;
  *) target="" ;;
esac

if [ -n "$target" ]; then
  implib_dir="$target_dir/lua-import/$target/$dll"
  mkdir -p "$implib_dir"
  # The C API is cdecl: undecorated in the DLL, so no --kill-at; i686's dlltool adds the
  # leading underscore the 32-bit linker looks for (_lua_gettop imports lua_gettop).
  "$tools-dlltool" -d "$here/windows/lua53.def" -D "$dll.dll" -l "$implib_dir/lib$dll.dll.a"
  # mlua-sys links LUA_LIB_NAME from LUA_LIB instead of its default (raw-dylib on "lua53").
  LUA_LIB_NAME="$dll" LUA_LIB="$implib_dir" \
    "$cargo" "${args[@]}" --target "$target"
  cp "$target_dir/$target/$profile_dir/punctual_lua.dll" "$out/punctual.dll"
  echo "build.sh: $out/punctual.dll (Lua 5.3, $bits-bit, imports from $dll.dll)"
else
  if [ -n "${GLIBC:-}" ]; then
    "$cargo" zigbuild "${args[@]:1}" --target "x86_64-unknown-linux-gnu.$GLIBC" --target-dir "$target_dir/zig"
    cp "$target_dir/zig/x86_64-unknown-linux-gnu/$profile_dir/libpunctual_lua.so" "$out/punctual.so"
  else
    "$cargo" "${args[@]}"
    cp "$target_dir/$profile_dir/libpunctual_lua.so" "$out/punctual.so"
  fi
  echo "build.sh: $out/punctual.so (Lua $version)"
fi
