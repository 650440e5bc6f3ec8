package session

// DecodeChunkDataMembers decodes a chunk payload member by member, the way
// DecodeChunkData does when the payload is not in the canonical layout.
func DecodeChunkDataMembers(data []byte) (ChunkData, error) {
	var d ChunkData
	err := d.decodeMembers(data)
	return d, err
}

// DecodesCanonically reports whether DecodeChunkData reads data in one pass.
func DecodesCanonically(data []byte) bool {
	var d ChunkData
	return d.decodeCanonical(data)
}

// DecodesPayloadCanonically reports whether Event.Decode reads data into v
// in one pass, without encoding/json; v is filled when it does.
func DecodesPayloadCanonically(data []byte, v any) bool { return decodeCanonical(data, v) }

// ChunkKey is what the model call count reads of a chunk payload.
func ChunkKey(data []byte) (key [3]int, finish, ok bool) { return chunkKey(data) }
