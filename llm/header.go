package llm

import (
	"crypto/sha256"
	"encoding/hex"

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
	h := session.RequestHeaderData{
		Turn:         req.Turn,
		Step:         req.Step,
		Attempt:      req.Attempt,
		Provider:     provider,
		Model:        req.Model,
		SystemDigest: Digest([]byte(req.System)),
		SystemChars:  len([]rune(req.System)),
		ToolCount:    len(req.Tools),
		MessageCount: len(req.Messages),
	}
	tools, _ := session.MarshalData(req.Tools)
	h.ToolsDigest = Digest(tools)
	for _, t := range req.Tools {
		h.ToolNames = append(h.ToolNames, t.Name)
	}
	// The conversation's digest is the digest of the messages' digests.
	all := sha256.New()
	h.MessageDigests = make([]string, 0, len(digests))
	for _, d := range digests {
		all.Write([]byte(d))
		all.Write([]byte{'\n'})
		h.MessageDigests = append(h.MessageDigests, d[:min(12, len(d))])
	}
	h.MessagesDigest = hex.EncodeToString(all.Sum(nil))
	return h
}

// MessageDigest is the sha256 (hex) of a message's JSON: what
// request/header's messageDigests hold (their first 12 characters).
func MessageDigest(m *Message) string {
	b, _ := session.MarshalData(m)
	return Digest(b)
}

// Digest is the sha256 of b in hex, the digest every request/header member
// uses.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
