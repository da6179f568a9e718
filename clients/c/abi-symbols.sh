#!/usr/bin/env bash
# Lists, one a line and sorted, the functions punctual.h declares (`header FILE`) or the
# functions a shared library exports (`library FILE`, through `nm -D --defined-only`), so
# scripts/check-c can compare the two: the ABI is exactly what the header documents.
set -euo pipefail
case "${1:-}" in
  header)
    # Every declaration in the header is `TYPE name(` at the start of a line; the
    # `static inline` functions after PUNCTUAL_INLINE_H are compiled into the caller, not
    # exported.
    sed '/^#ifndef PUNCTUAL_INLINE_H/,$d' "$2" | grep -oE '^[a-z_0-9 ]+[ *]punctual_[a-z_0-9]+\(' |
      grep -oE 'punctual_[a-z_0-9]+' | sort -u
    ;;
  library)
    nm -D --defined-only "$2" | awk '$2 ~ /^[TtWwDdBbRrVviu]$/ { print $3 }' | sort -u
    ;;
  *) echo "usage: abi-symbols.sh header|library FILE" >&2; exit 2 ;;
esac
