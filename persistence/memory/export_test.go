package memory

// AppendRaw appends raw bytes to the stored log of id, as a crash mid-write
// would leave them.
func (b *Backend) AppendRaw(id string, raw []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.logs[id].buf = append(b.logs[id].buf, raw...)
}
