package readfile

import (
	"io"
	"slices"
)

// maxHint bounds the size a file's stat may make Append reserve: a
// larger file is read in growing steps, as os.ReadFile reads a file whose
// size it does not know.
const maxHint = 1 << 30

// minRead is the least room the first read is given, as os.ReadFile gives
// it: files in Linux's /proc claim a size of 0, and some (/proc/sys) fill
// the first read and then end, so a smaller one would cut them short.
const minRead = 512

// appendFrom appends what r holds to buf, growing it once to size (when
// known and bounded) and one byte more, to see the end without a second
// growth, or to minRead when that is more. A reader returning 0 bytes and
// no error is at its end, as read(2) is; io.EOF is the end of an *os.File.
func appendFrom(buf []byte, r io.Reader, size int64) ([]byte, error) {
	return appendUpTo(buf, r, size, false)
}

// appendRegular is appendFrom for a regular file whose size is size: a
// read that ends exactly at size is its end, which saves the read(2) that
// would return 0 — one system call in five of a small file's. A short read
// before that size (as a network file system may give), or a file grown
// past it, reads on to the end, as os.ReadFile does; so does a size of 0,
// which Linux's /proc files claim (a read of something passes it, a read
// of nothing is the end). The first read's byte of room past size is what
// shows a grown file: without it that read would end at size.
func appendRegular(buf []byte, r io.Reader, size int64) ([]byte, error) {
	return appendUpTo(buf, r, size, true)
}

// appendUpTo is appendFrom, ending at size too when atSize is set.
func appendUpTo(buf []byte, r io.Reader, size int64, atSize bool) ([]byte, error) {
	room := minRead
	if size >= 0 && size < maxHint {
		room = max(int(size)+1, minRead)
	}
	start := len(buf)
	buf = slices.Grow(buf, room)
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 512)
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case n == 0:
			return buf, nil
		case atSize && int64(len(buf)-start) == size:
			return buf, nil
		}
	}
}
