package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/session"
)

// RequestHeader returns the payload of the request/header event a runtime
// writes before the model call req: digests and counts of the system
// prompt, the tools and the conversation, so a replay that sends something
// else shows the exact call where it changed (request drift). provider is
// recorded as given.
//
// It digests every message of req; a runtime that keeps a conversation
// across calls should keep each message's MessageDigest and call
// RequestHeaderDigests instead, which costs O(messages) per call without
// re-encoding any message.
func RequestHeader(provider string, req *Request) session.RequestHeaderData {
	digests := make([]string, len(req.Messages))
	for i := range req.Messages {
		digests[i] = MessageDigest(&req.Messages[i])
	}
	return RequestHeaderDigests(provider, req, digests)
}

// RequestHeaderDigests is RequestHeader with the MessageDigest of each of
// req.Messages already known: digests[i] belongs to req.Messages[i].
func RequestHeaderDigests(provider string, req *Request, digests []string) session.RequestHeaderData {
	var chain DigestChain
	for _, d := range digests {
		chain.Add(d)
	}
	return RequestHeaderChain(provider, req, digests, &chain)
}

// RequestHeaderChain is RequestHeaderDigests for a runtime that keeps the
// conversation's DigestChain as it grows, so each call hashes nothing it
// hashed before: chain holds digests, added in order.
func RequestHeaderChain(provider string, req *Request, digests []string, chain *DigestChain) session.RequestHeaderData {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Name)
	}
	toolsDigest, each := digestTools(req.Tools)
	return header(provider, req, Digest([]byte(req.System)), utf8.RuneCountInString(req.System), // as len([]rune(s)), without the copy
		toolsDigest, names, each, digests, chain)
}

// header is the request/header payload of req with the digests of its
// system prompt and tools given.
func header(provider string, req *Request, systemDigest string, systemChars int, toolsDigest string, toolNames, toolDigests, digests []string, chain *DigestChain) session.RequestHeaderData {
	h := session.RequestHeaderData{
		Turn:         req.Turn,
		Step:         req.Step,
		Attempt:      req.Attempt,
		Provider:     provider,
		Model:        req.Model,
		SystemDigest: systemDigest,
		SystemChars:  systemChars,
		ToolsDigest:  toolsDigest,
		ToolCount:    len(req.Tools),
		ToolNames:    toolNames,
		ToolDigests:  toolDigests,
		MessageCount: len(req.Messages),
		API:          req.API,
		Settings:     req.Settings,
	}
	if n := len(digests); n > 0 && len(chain.short) == n {
		// The chain's, capped: its list only grows past n, so this
		// header's never changes.
		h.MessageDigests = chain.short[:n:n]
	} else {
		h.MessageDigests = make([]string, 0, len(digests))
		for _, d := range digests {
			h.MessageDigests = append(h.MessageDigests, shortDigest(d))
		}
	}
	h.MessagesDigest = chain.Sum()
	return h
}

// DigestChain is the messagesDigest of a conversation as it grows: the
// sha256 (hex) of its messages' digests, each followed by a newline. The
// zero value is an empty conversation. It is not safe for concurrent use.
type DigestChain struct {
	h     hash.Hash
	buf   []byte            // the line being added, reused
	sum   [sha256.Size]byte // Sum's, reused: a local escapes through h
	short []string          // each digest's short form, as a header lists them
}

// Add appends the MessageDigest of the conversation's next message.
func (c *DigestChain) Add(digest string) {
	if c.h == nil {
		c.h = sha256.New()
	}
	c.buf = append(append(c.buf[:0], digest...), '\n')
	_, _ = c.h.Write(c.buf)
	c.short = append(c.short, shortDigest(digest))
}

// shortDigest is the form of a message's digest request/header lists: its
// first 12 characters.
func shortDigest(d string) string { return d[:min(12, len(d))] }

// Sum returns the messagesDigest of the digests added so far; Add may go
// on after it.
func (c *DigestChain) Sum() string {
	if c.h == nil {
		return Digest(nil)
	}
	c.h.Sum(c.sum[:0])
	return hexDigest(&c.sum)
}

// MessageDigest is the sha256 (hex) of a message's JSON: what
// request/header's messageDigests hold (their first 12 characters).
func MessageDigest(m *Message) string {
	sum, _ := session.SumData(m)
	return hexDigest(&sum)
}

// Digest is the sha256 of b in hex, the digest every request/header member
// uses.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hexDigest(&sum)
}

// hexDigest is sum in hex, one allocation: the string.
func hexDigest(sum *[sha256.Size]byte) string {
	var buf [2 * sha256.Size]byte
	hex.Encode(buf[:], sum[:])
	return string(buf[:])
}

// digestTools returns the toolsDigest of tools and each tool's digest as
// toolDigests lists it (its first 12 characters): the digest of the tool's
// element of the array toolsDigest hashes, so the tools are encoded once.
func digestTools(tools []ToolSpec) (all string, each []string) {
	b, ends := marshalTools(tools)
	all = Digest(b)
	if len(tools) == 0 {
		return all, nil
	}
	// Every digest in one string, each a window of it: one allocation
	// for all the tools, not one each.
	hexes := make([]byte, 0, shortLen*len(tools))
	if len(ends) != len(tools) { // MarshalData wrote the array: encode each tool apart
		for i := range tools {
			t, _ := session.MarshalData(&tools[i])
			hexes = appendShortSum(hexes, t)
		}
	} else {
		start := 1 // past '['
		for _, end := range ends {
			hexes = appendShortSum(hexes, b[start:end])
			start = end + 1 // past ','
		}
	}
	joined := string(hexes)
	each = make([]string, len(tools))
	for i := range each {
		each[i] = joined[i*shortLen : (i+1)*shortLen]
	}
	return all, each
}

// shortLen is the length of a short digest: 12 hex digits.
const shortLen = 12

// appendShortSum appends shortDigest(Digest(b)) without the whole hex
// string.
func appendShortSum(dst, b []byte) []byte {
	sum := sha256.Sum256(b)
	return hex.AppendEncode(dst, sum[:shortLen/2])
}

// marshalTools is session.MarshalData(tools) written out for the tool
// specs every model call digests: encoding/json's bytes (names and
// descriptions escaped as it escapes them, parameters compacted as it
// compacts a json.RawMessage) without its reflection, with the offset
// where each tool's object ends. A parameters value encoding/json refuses
// goes to MarshalData, as before; so does a nil list: then ends is nil.
func marshalTools(tools []ToolSpec) (out []byte, ends []int) {
	if tools == nil {
		b, _ := session.MarshalData(tools)
		return b, nil
	}
	out = []byte{'['}
	ends = make([]int, 0, len(tools))
	for i := range tools {
		t := &tools[i]
		if i > 0 {
			out = append(out, ',')
		}
		out = jsonscan.AppendStdString(append(out, `{"name":`...), t.Name)
		out = jsonscan.AppendStdString(append(out, `,"description":`...), t.Description)
		out = append(out, `,"parameters":`...)
		if t.Parameters == nil {
			out = append(out, "null"...)
		} else {
			var err error
			if out, err = jsonscan.AppendCompact(out, t.Parameters); err != nil {
				b, _ := session.MarshalData(tools)
				return b, nil
			}
		}
		out = append(out, '}')
		ends = append(ends, len(out))
	}
	return append(out, ']'), ends
}
