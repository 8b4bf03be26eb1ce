#!/bin/sh
# Regenerates maps/fonts/NotoSansSC-MallbotSubset.otf: Noto Sans CJK SC
# Regular (SIL Open Font License 1.1, from Debian's fonts-noto-cjk) cut down
# to printable ASCII, Latin-1, every Chinese character of GB 2312 (the 6 763
# of Simplified names) and of Big5's common level (the 5 401 of Traditional
# ones), so that any mall's names draw on its floor plans without this
# script (about 2 MB); and every other character the plans can show: the
# names in the demo IMDF archive and their Traditional forms (as the bot
# converts them for Traditional Chinese: handlers' example `to_traditional`),
# the text in maps/src and the map words of the text tables (the `map:`
# field in handlers/src/texts). Run it again only to add rarer characters.
#
# Needs: apt-get install fonts-noto-cjk; pip install fonttools; cargo
# Run from the repository root:  sh maps/tools/subset_font.sh
set -eu
SRC=/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
OUT=maps/fonts/NotoSansSC-MallbotSubset.otf
TEXT=$(mktemp)
HANT=$(mktemp)
cat maps/data/demo-imdf/* | cargo run -q -p handlers --example to_traditional >"$HANT"
python3 - "$TEXT" "$HANT" <<'PY'
import glob, sys
chars = set(chr(c) for c in range(0x20, 0x7f)) | set(chr(c) for c in range(0xa0, 0x100))
for path in glob.glob("maps/data/demo-imdf/*") + glob.glob("maps/src/*.rs") + [sys.argv[2]]:
    chars |= set(c for c in open(path, encoding="utf-8").read() if ord(c) >= 0x80)
# The map words of each text table: its `map:` field.
for path in glob.glob("handlers/src/texts/*.rs"):
    table = open(path, encoding="utf-8").read()
    start = table.find("    map: ")
    first = table[start:table.find("\n", start)] if start >= 0 else ""
    words = table[start:table.find("\n    },", start)] if first.endswith("{") else first
    chars |= set(c for c in words if ord(c) >= 0x80)
chars |= set("→←↑↓▲●■◆·（）：，。、？！「」")
# Every Chinese character of GB 2312 and of Big5's common level (5401 characters).
for hi in range(0xB0, 0xF8):
    for lo in range(0xA1, 0xFF):
        try:
            chars.add(bytes([hi, lo]).decode("gb2312"))
        except UnicodeDecodeError:
            pass
for hi in range(0xA4, 0xC7):
    for lo in list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)):
        try:
            chars.add(bytes([hi, lo]).decode("big5"))
        except UnicodeDecodeError:
            pass
open(sys.argv[1], "w", encoding="utf-8").write("".join(sorted(chars)))
PY
# Font number 2 of the collection is Noto Sans CJK SC.
pyftsubset "$SRC" --font-number=2 --text-file="$TEXT" --output-file="$OUT" \
  --layout-features='kern,liga' --no-hinting --desubroutinize --name-IDs='*' --name-languages='*'
rm -f "$TEXT" "$HANT"
ls -l "$OUT"
