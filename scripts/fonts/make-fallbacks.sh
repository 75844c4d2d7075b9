#!/usr/bin/env bash
# Remakes the bundled fallback fonts (assets/fonts/Noto*.ttf, issue 21 §3) from Debian's Noto
# packages: subsets made with hb-subset (libharfbuzz-bin) so the repository and R2 stay lean,
# every OpenType layout feature kept (shaping needs them), hinting dropped (resvg and PDF readers
# do not use it). The CJK face is CFF in a collection: subset, then converted to TrueType outlines
# (cff-to-glyf.py, fontTools) so PDFs can embed it like the others. Which characters each keeps:
# docs/fonts.md. Usage: scripts/fonts/make-fallbacks.sh (needs apt-get, dpkg-deb, hb-subset,
# python3 with fontTools).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/../../assets/fonts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download fonts-noto-core fonts-noto-cjk >/dev/null
for deb in *.deb; do dpkg-deb -x "$deb" x; done
noto=x/usr/share/fonts/truetype/noto
common='20-7E,A0-FF,200C-200F,2010-2027,202A-202E,2030-203A,2066-2069,25CC,FEFF'

subset() { # subset <input> <output> <unicodes> [extra hb-subset options]
  local input=$1 output=$2 unicodes=$3
  shift 3
  hb-subset "$input" --unicodes="$unicodes" --layout-features='*' --no-hinting --name-IDs='*' --output-file="$output" "$@"
  echo "$(basename "$output"): $(stat -c %s "$output") bytes"
}

# Arabic (with presentation forms and the Arabic supplement), Hebrew, Devanagari (with the
# Vedic extensions and the Devanagari extended block), Thai: their whole blocks.
subset $noto/NotoSansArabic-Regular.ttf "$out/NotoSansArabic-Regular.ttf" "$common,600-6FF,750-77F,8A0-8FF,FB50-FDFF,FE70-FEFF"
subset $noto/NotoSansHebrew-Regular.ttf "$out/NotoSansHebrew-Regular.ttf" "$common,590-5FF,FB1D-FB4F"
subset $noto/NotoSansDevanagari-Regular.ttf "$out/NotoSansDevanagari-Regular.ttf" "$common,900-97F,1CD0-1CFF,A8E0-A8FF"
subset $noto/NotoSansThai-Regular.ttf "$out/NotoSansThai-Regular.ttf" "$common,E00-E7F"

# CJK: the Simplified Chinese face of the collection (index 2) with the list of cjk-unicodes.py.
{ python3 "$here/cjk-unicodes.py"; tr , '\n' <<<"$common"; } >cjk.txt
hb-subset x/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc --face-index=2 --unicodes-file=cjk.txt \
  --layout-features='*' --no-hinting --name-IDs='*' --desubroutinize --output-file=cjk.otf
python3 "$here/cff-to-glyf.py" cjk.otf "$out/NotoSansCJKsc-Regular.ttf"
echo "NotoSansCJKsc-Regular.ttf: $(stat -c %s "$out/NotoSansCJKsc-Regular.ttf") bytes"

# Debian's copyright files carry the SIL OFL 1.1 text and the upstream notices (no Reserved Font Name).
{ cat x/usr/share/doc/fonts-noto-core/copyright; echo; cat x/usr/share/doc/fonts-noto-cjk/copyright; } >"$out/LICENSE-Noto-OFL.txt"
