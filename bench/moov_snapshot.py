#!/usr/bin/env python3
"""Saves or puts back a movie's top-level moov box, so an in-place benchmark can repeat its edit.

usage: moov_snapshot.py save MOVIE SNAPSHOT | moov_snapshot.py restore MOVIE SNAPSHOT
"""
import os, struct, sys

def find_moov(fd):
    size, offset = os.fstat(fd).st_size, 0
    while offset + 8 <= size:
        length, kind = struct.unpack(">I4s", os.pread(fd, 8, offset))
        if length == 1:
            length = struct.unpack(">Q", os.pread(fd, 8, offset + 8))[0]
        elif length == 0:
            length = size - offset
        if kind == b"moov":
            return offset, length
        if length < 8:
            break
        offset += length
    sys.exit("no top-level moov box")

mode, movie, snapshot = sys.argv[1:]
fd = os.open(movie, os.O_RDWR)
if mode == "save":
    offset, length = find_moov(fd)
    with open(snapshot, "wb") as out:
        out.write(struct.pack(">Q", offset) + os.pread(fd, length, offset))
else:
    data = open(snapshot, "rb").read()
    os.pwrite(fd, data[8:], struct.unpack(">Q", data[:8])[0])
