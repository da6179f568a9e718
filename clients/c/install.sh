#!/usr/bin/env bash
# Builds libpunctual and installs it under PREFIX: lib/ (shared and static library),
# include/ (punctual.h, punctual.hpp), lib/pkgconfig/punctual.pc, and bin/punctual-waits
# (the example that compares the strategies, examples/waits.c).
#
#   clients/c/install.sh PREFIX [--target x86_64-pc-windows-gnu] [--debug | --profile NAME] [--glibc 2.17]
#
# Linux: lib/libpunctual.so.0.1.0 with its libpunctual.so.0 and libpunctual.so links, and
# lib/libpunctual.a. Windows (cross-built with Debian's mingw-w64): bin/punctual.dll, its
# import library lib/libpunctual.dll.a, lib/punctual.def and lib/libpunctual.a. --debug installs
# the dev profile's build instead of the release one (scripts/check-c does, to reuse the
# tests' build); --profile dist is the stripped one scripts/release ships. punctual.pc finds
# the prefix from its own place (${pcfiledir}), so the tree can be moved or unpacked anywhere.
# --glibc VERSION links the Linux library against that glibc with cargo-zigbuild (the
# release's 2.17, manylinux2014's), so it loads on older systems than the build machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:?usage: install.sh PREFIX [--target TRIPLE] [--debug]}
shift
target="" profile=release glibc=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --debug) profile=dev; shift ;;
    --profile) profile=$2; shift 2 ;;
    --glibc) glibc=$2; shift 2 ;;
    *) echo "install.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$prefix"
prefix=$(cd "$prefix" && pwd)
version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$here/Cargo.toml" | head -1)

cargo_args=(build -p punctual-c --lib --manifest-path "$root/Cargo.toml" --profile "$profile")
target_dir="$root/target"
if [ -n "$glibc" ]; then
  # zig links against the glibc asked for; a target directory of its own, so that no
  # library linked against this machine's glibc is taken for one of those.
  target=${target:-x86_64-unknown-linux-gnu}
  target_dir="$root/target/zig"
  cargo_args=(zigbuild "${cargo_args[@]:1}" --target "$target.$glibc" --target-dir "$target_dir")
elif [ -n "$target" ]; then
  cargo_args+=(--target "$target")
fi
cargo "${cargo_args[@]}"
out="$target_dir/${target:+$target/}$([ "$profile" = dev ] && echo debug || echo "$profile")"

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
prefix=\${pcfiledir}/../..
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
