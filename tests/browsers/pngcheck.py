#!/usr/bin/env python3
"""Is a screenshot a real render of tests/browsers/page.html?

Usage: pngcheck.py FILE WIDTH HEIGHT
Decodes the PNG (8-bit RGB or RGBA, non-interlaced: what browsers write) and
checks that it is WIDTH x HEIGHT, that the page's red block (320x200 CSS
pixels at the top left, scaled by WIDTH/800) is there, that the rest is not
all one colour (text was rendered: fonts work) and that it is not blank.
Prints one line; exits 0 when all hold."""
import struct
import sys
import zlib


def decode(data):
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError("unexpected PNG format (depth %d, colour type %d)" % (depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open(path, "rb") as f:
        w, h, bpp, rows = decode(f.read())
    problems = []
    if (w, h) != (want_w, want_h):
        problems.append("size %dx%d, expected %dx%d" % (w, h, want_w, want_h))
    scale = w / 800.0
    bw, bh = int(320 * scale), int(200 * scale)
    red = total = 0
    colours = set()
    for y in range(h):
        row = rows[y]
        for x in range(0, w, 2):
            px = row[x * bpp:x * bpp + 3]
            colours.add(px)
            if 4 <= x < bw - 4 and 4 <= y < bh - 4:
                total += 1
                red += px[0] > 180 and px[1] < 60 and px[2] < 60
    if total == 0 or red < 0.95 * total:
        problems.append("the red block is missing (%d of %d pixels red)" % (red, total))
    if len(colours) < 3:
        problems.append("only %d colour(s): blank or no text" % len(colours))
    print("%s: %dx%d, %d colours, red block %d/%d%s" % (
        path, w, h, len(colours), red, total, "; " + "; ".join(problems) if problems else ""))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
