package memory

// arena holds the data of kept events in blocks that never move once
// allocated, so a span of it stays valid and events can alias it. Blocks
// are filled by copies: the store holds the only copy of a log, densely
// (its writer lets its own go, as package journal does).
type arena struct {
	blocks [][]byte
	fill   int // 1 + the index of the block add fills; 0 before the first
	size   int // bytes copied in
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
	if a.fill == 0 || cap(a.blocks[a.fill-1])-len(a.blocks[a.fill-1]) < len(p) {
		a.blocks = append(a.blocks, make([]byte, 0, max(len(p), min(max(firstBytes, a.size), maxBytes))))
		a.fill = len(a.blocks)
	}
	blk := a.blocks[a.fill-1]
	s := span{block: uint32(a.fill - 1), start: uint32(len(blk)), len: uint32(len(p))}
	a.blocks[a.fill-1] = append(blk, p...)
	a.size += len(p)
	return s
}

// bytes returns the bytes of s, capped so an append cannot write past them.
func (a *arena) bytes(s span) []byte {
	end := s.start + s.len
	return a.blocks[s.block][s.start:end:end]
}
