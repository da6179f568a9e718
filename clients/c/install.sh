#!/usr/bin/env bash
# Builds libpunctual and installs it under PREFIX: lib/ (shared and static library),
# include/ (punctual.h, punctual.hpp), lib/pkgconfig/punctual.pc, and bin/punctual-waits
# (the example that compares the strategies, examples/waits.c).
#
#   clients/c/install.sh PREFIX [--target x86_64-pc-windows-gnu] [--debug]
#
# Linux: lib/libpunctual.so.0.1.0 with its libpunctual.so.0 and libpunctual.so links, and
# lib/libpunctual.a. Windows (cross-built with Debian's mingw-w64): bin/punctual.dll, its
# import library lib/libpunctual.dll.a, and lib/libpunctual.a. --debug installs the dev
# profile's build instead of the release one (scripts/check-c does, to reuse the tests' build).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:?usage: install.sh PREFIX [--target TRIPLE] [--debug]}
shift
target="" profile=release
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --debug) profile=debug; shift ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/Cargo.toml" | head -1)

cargo_args=(build -p punctual-c --lib --manifest-path "$root/Cargo.toml")
[ "$profile" = release ] && cargo_args+=(--release)
[ -n "$target" ] && cargo_args+=(--target "$target")
cargo "${cargo_args[@]}"
out="$root/target/${target:+$target/}$profile"

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/bin"
install -m 644 "$here/include/punctual.h" "$here/include/punctual.hpp" "$prefix/include/"
install -m 644 "$out/libpunctual_c.a" "$prefix/lib/libpunctual.a"

case "$target" in
  *windows-gnu)
    cc=x86_64-w64-mingw32-gcc
    exe=.exe
    install -m 755 "$out/punctual_c.dll" "$prefix/bin/punctual.dll"
    # The import library names the DLL it was made for; punctual_c.dll's would not find
    # punctual.dll, so make one from the exported functions (those the header declares).
    {
      echo "LIBRARY punctual.dll"
      echo "EXPORTS"
      "$here/abi-symbols.sh" header "$here/include/punctual.h"
    } > "$prefix/lib/punctual.def"
    x86_64-w64-mingw32-dlltool --dllname punctual.dll --def "$prefix/lib/punctual.def" \
      --output-lib "$prefix/lib/libpunctual.dll.a"
    # rustc --print native-static-libs, with the system libraries behind windows-sys' own
    # import library (windows.0.52.0): winmm (timeBeginPeriod), synchronization (WaitOnAddress).
    libs_private="-lwinmm -lsynchronization -lkernel32 -lntdll -luserenv -lws2_32 -ldbghelp -ladvapi32 -lbcrypt"
    ;;
  *)
    cc=${CC:-cc}
    exe=""
    install -m 755 "$out/libpunctual_c.so" "$prefix/lib/libpunctual.so.$version"
    ln -sf "libpunctual.so.$version" "$prefix/lib/libpunctual.so.0"
    ln -sf "libpunctual.so.0" "$prefix/lib/libpunctual.so"
    # rustc --print native-static-libs for the staticlib.
    libs_private="-lgcc_s -lutil -lrt -lpthread -lm -ldl -lc"
    ;;
esac

cat > "$prefix/lib/pkgconfig/punctual.pc" <<PC
prefix=$prefix
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: punctual
Description: Sleeps that never wake early, and wake as little late as the machine allows
Version: $version
URL: https://github.com/punctual-rs/punctual
Cflags: -I\${includedir}
Libs: -L\${libdir} -lpunctual
Libs.private: $libs_private
PC

"$cc" -std=c99 -O2 -Wall -Wextra -Werror -I"$prefix/include" "$here/examples/waits.c" \
  -L"$prefix/lib" -lpunctual -o "$prefix/bin/punctual-waits$exe"
echo "installed libpunctual $version in $prefix"
