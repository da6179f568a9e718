#!/usr/bin/env bash
# Builds a Windows Lua 5.3 for testing the module under Wine, as Cheat Engine ships it:
#   clients/lua/windows/build-lua.sh OUTDIR        ->  OUTDIR/lua53-64.dll and OUTDIR/lua.exe
#   clients/lua/windows/build-lua.sh OUTDIR --32   ->  OUTDIR/lua53-32.dll and a 32-bit lua.exe
# Lua's own 5.3 sources come from the lua-src crate on crates.io (fetched with cargo into a
# throwaway manifest); lua.exe is lua_host.c beside this script. Needs Debian's
# gcc-mingw-w64-x86-64, and gcc-mingw-w64-i686 for --32 (scripts/setup).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage="usage: build-lua.sh OUTDIR [--32]"
out="" bits=64
for a in "$@"; do
  case $a in
    --32) bits=32 ;;
    --64) bits=64 ;;
    -*) echo "build-lua.sh: unknown option '$a'; $usage" >&2; exit 2 ;;
    *) [ -z "$out" ] || { echo "$usage" >&2; exit 2; }; out=$a ;;
  esac
done
[ -n "$out" ] || { echo "$usage" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
case $bits in
  64) cc=x86_64-w64-mingw32-gcc ;;
  32) cc=i686-w64-mingw32-gcc ;;
esac
dll=lua53-$bits

scratch="$out/lua-src-manifest"
mkdir -p "$scratch/src"
cat >"$scratch/Cargo.toml" <<'TOML'
[package]
name = "fetch-lua-src"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
lua-src = "=551.1.0"

[workspace]
TOML
: >"$scratch/src/lib.rs"
cargo fetch --quiet --manifest-path "$scratch/Cargo.toml"
crate=$(cargo metadata --quiet --format-version 1 --manifest-path "$scratch/Cargo.toml" |
  jq -r '.packages[] | select(.name == "lua-src") | .manifest_path' | xargs dirname)
src="$crate/lua-5.3.6"
[ -f "$src/lapi.c" ] || { echo "build-lua.sh: no Lua 5.3 sources in $crate" >&2; exit 1; }

# Lua's makefile for mingw: every library file into the DLL, LUA_BUILD_AS_DLL for its
# exports, the 5.3 default LUA_COMPAT_5_2. -static-libgcc: Debian's i686 mingw links libgcc
# as libgcc_s_dw2-1.dll otherwise, which a Wine prefix (or Cheat Engine's folder) lacks.
lib_files=()
for f in "$src"/*.c; do
  case $(basename "$f") in lua.c | luac.c) ;; *) lib_files+=("$f") ;; esac
done
"$cc" -O2 -std=gnu99 -DLUA_BUILD_AS_DLL -DLUA_COMPAT_5_2 -static-libgcc -shared -s \
  -o "$out/$dll.dll" "${lib_files[@]}" -Wl,--out-implib,"$out/lib$dll.dll.a"
"$cc" -O2 -std=gnu99 -DLUA_BUILD_AS_DLL -DLUA_COMPAT_5_2 -static-libgcc -s -I "$src" \
  -o "$out/lua.exe" "$here/lua_host.c" -L "$out" -l"$dll"
echo "build-lua.sh: $out/$dll.dll and $out/lua.exe ($bits-bit) from $src"
