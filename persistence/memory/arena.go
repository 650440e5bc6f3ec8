package memory

// arena holds the data of kept events in blocks that never move once
// allocated, so a span of it stays valid and events can alias it.
type arena struct {
	blocks [][]byte
	size   int
}

// span locates bytes in an arena.
type span struct {
	block, start, len uint32
}

// Blocks double from firstBytes up to maxBytes; larger data gets a block of
// its own size.
const (
	firstBytes = 4 << 10
	maxBytes   = 64 << 10
)

// add copies p into the arena.
func (a *arena) add(p []byte) span {
	n := len(a.blocks)
	if n == 0 || cap(a.blocks[n-1])-len(a.blocks[n-1]) < len(p) {
		a.blocks = append(a.blocks, make([]byte, 0, max(len(p), min(max(firstBytes, a.size), maxBytes))))
		n++
	}
	blk := a.blocks[n-1]
	s := span{block: uint32(n - 1), start: uint32(len(blk)), len: uint32(len(p))}
	a.blocks[n-1] = append(blk, p...)
	a.size += len(p)
	return s
}

// bytes returns the bytes of s, capped so an append cannot write past them.
func (a *arena) bytes(s span) []byte {
	end := s.start + s.len
	return a.blocks[s.block][s.start:end:end]
}
