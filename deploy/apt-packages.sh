#!/bin/sh
# Prints the packages of the named sections of apt-packages.txt (beside this script), one
# per line: `sh deploy/apt-packages.sh run test`. POSIX sh and awk, for the slim image too.
set -eu
awk -v wanted=" $* " '
  /^\[/ { section = substr($1, 2, length($1) - 2); next }
  { sub(/#.*/, "") }
  NF && index(wanted, " " section " ") { print $1 }
' "$(dirname "$0")/apt-packages.txt"
