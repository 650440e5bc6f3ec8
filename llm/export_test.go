package llm

import "sync/atomic"

// CountMessageDigests counts the messages Digester hashes from now on,
// until the returned function is called, which says how many.
func CountMessageDigests() (stop func() int) {
	var n atomic.Int64
	messageDigest = func(m *Message) string {
		n.Add(1)
		return MessageDigest(m)
	}
	return func() int {
		messageDigest = MessageDigest
		return int(n.Load())
	}
}

// CountToolDigests counts the tool lists Digester hashes from now on,
// until the returned function is called, which says how many.
func CountToolDigests() (stop func() int) {
	var n atomic.Int64
	toolsDigests = func(tools []ToolSpec) (string, []string) {
		n.Add(1)
		return digestTools(tools)
	}
	return func() int {
		toolsDigests = digestTools
		return int(n.Load())
	}
}
