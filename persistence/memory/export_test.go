package memory

// AppendRaw appends raw bytes to the stored log of id, as a crash mid-write
// would leave them. The log is kept as bytes from then on.
func (b *Backend) AppendRaw(id string, raw []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.logs[id]
	l.raw = append(l.bytes(&b.data), raw...)
	l.events = eventLog{}
}

// Bytes returns the bytes of the log of id, as a JSONL backend holds them.
func (b *Backend) Bytes(id string) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs[id].bytes(&b.data)
}

// Cached reports whether the log of id is kept as events, which Read
// returns without decoding.
func (b *Backend) Cached(id string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs[id].raw == nil
}

// Shared returns how many leading events of the log of id keep the very
// data of its parent's events at the same seqs.
func (b *Backend) Shared(id string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.logs[id]
	p := b.logs[l.header.ParentSession]
	if l.raw != nil || p == nil || p.raw != nil {
		return 0
	}
	var mine, theirs []kept
	for _, blk := range l.events.kept {
		mine = append(mine, blk...)
	}
	for _, blk := range p.events.kept {
		theirs = append(theirs, blk...)
	}
	n := 0
	for n < len(mine) && n < len(theirs) && mine[n].flags&hasData != 0 && mine[n].data == theirs[n].data {
		n++
	}
	return n
}
