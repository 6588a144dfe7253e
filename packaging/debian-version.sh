#!/bin/sh
# debian-version.sh VERSION: print the Debian version for a `git describe`
# version: without a leading "v", other characters than [0-9A-Za-z.+~]
# replaced by "+" (no hyphen: rackboot is a native package), and "0.0+git"
# in front of a bare commit hash or anything else not starting with a digit.
#   v1.2.0 -> 1.2.0   v1.2.0-3-gabc1234 -> 1.2.0+3+gabc1234   fcac8c7-dirty -> 0.0+gitfcac8c7+dirty
set -eu
[ $# -eq 1 ] && [ -n "$1" ] || { echo "usage: $0 VERSION" >&2; exit 2; }
v=$(printf '%s' "$1" | sed -e 's/^v//' -e 's/[^0-9A-Za-z.+~]/+/g')
if printf '%s\n' "$v" | grep -Eq '^[0-9a-f]{7,40}(\+dirty)?$'; then
	v=git$v
fi
case $v in
[0-9]*) printf '%s\n' "$v" ;;
*) printf '0.0+%s\n' "$v" ;;
esac
