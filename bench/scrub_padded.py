#!/usr/bin/env python3
"""Makes a large copy of a movie whose mdat is padded with a hole, or saves/puts back its tail.

usage: scrub_padded.py pad IN OUT BYTES   the mdat grows by BYTES of zeros after its last sample (a
                                          sparse hole); the samples keep their offsets, the boxes after
                                          mdat move. Needs an 8-byte `wide` box right before mdat (as
                                          iPhone recordings have) to take the mdat's 64-bit size.
       scrub_padded.py save MOVIE SNAPSHOT    the bytes after mdat (moov, free), to repeat an in-place edit
       scrub_padded.py restore MOVIE SNAPSHOT
"""
import os, struct, sys

def boxes(fd):
    size, offset = os.fstat(fd).st_size, 0
    while offset + 8 <= size:
        length, kind = struct.unpack(">I4s", os.pread(fd, 8, offset))
        header = 8
        if length == 1:
            length, header = struct.unpack(">Q", os.pread(fd, 8, offset + 8))[0], 16
        elif length == 0:
            length = size - offset
        if length < header:
            sys.exit("box of size %d at %d" % (length, offset))
        yield offset, length, kind, header
        offset += length

def mdat_end(fd):
    for offset, length, kind, _ in boxes(fd):
        if kind == b"mdat":
            return offset + length
    sys.exit("no mdat")

mode = sys.argv[1]
if mode == "pad":
    source, target, extra = sys.argv[2], sys.argv[3], int(sys.argv[4])
    fd = os.open(source, os.O_RDONLY)
    layout = list(boxes(fd))
    index = next(i for i, box in enumerate(layout) if box[2] == b"mdat")
    wide, mdat = layout[index - 1], layout[index]
    if wide[2] != b"wide" or wide[1] != 8 or mdat[3] != 8:
        sys.exit("needs an 8-byte wide box before a compact mdat header")
    payload_start, end = mdat[0] + 8, mdat[0] + mdat[1]
    with open(target, "wb") as out:
        out.write(os.pread(fd, wide[0], 0))
        out.write(struct.pack(">I4sQ", 1, b"mdat", 16 + (end - payload_start) + extra))
        out.write(os.pread(fd, end - payload_start, payload_start))
        out.seek(extra, os.SEEK_CUR)
        out.write(os.pread(fd, os.fstat(fd).st_size - end, end))
else:
    movie, snapshot = sys.argv[2], sys.argv[3]
    fd = os.open(movie, os.O_RDWR)
    if mode == "save":
        end = mdat_end(fd)
        with open(snapshot, "wb") as out:
            out.write(struct.pack(">Q", end) + os.pread(fd, os.fstat(fd).st_size - end, end))
    else:
        data = open(snapshot, "rb").read()
        os.pwrite(fd, data[8:], struct.unpack(">Q", data[:8])[0])
        os.fsync(fd)
