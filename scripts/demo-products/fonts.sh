#!/bin/sh
# Remakes the demo products' Lato subsets in assets/fonts from Debian's fonts-lato (Lato 2.0,
# SIL Open Font License 1.1, no Reserved Font Name): Latin (Basic, Latin-1, Extended-A),
# general punctuation, the euro and trade mark signs; hinting dropped. Needs hb-subset
# (libharfbuzz-bin). Usage: sh scripts/demo-products/fonts.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download fonts-lato >/dev/null && dpkg-deb -x fonts-lato_*.deb x)
for weight in Regular Bold Light; do
  hb-subset --unicodes="20-7E,A0-17F,2010-2027,2030-203A,20AC,2122" --no-hinting \
    --output-file="$root/assets/fonts/Lato-$weight.ttf" "$tmp/x/usr/share/fonts/truetype/lato/Lato-$weight.ttf"
done
cp "$tmp/x/usr/share/doc/fonts-lato/copyright" "$root/assets/fonts/LICENSE-Lato-OFL.txt"
