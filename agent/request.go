package agent

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// requestHeader digests what a model call sends, for the request/header
// event: a changed system prompt, tool set or conversation changes a digest
// at the exact call where it happens.
// digests holds the sha256 of each message in req.Messages (messageDigest).
func requestHeader(provider string, req *llm.Request, digests []string) session.RequestHeaderData {
	h := session.RequestHeaderData{
		Turn:         req.Turn,
		Step:         req.Step,
		Attempt:      req.Attempt,
		Provider:     provider,
		Model:        req.Model,
		SystemDigest: digest([]byte(req.System)),
		SystemChars:  len([]rune(req.System)),
		ToolCount:    len(req.Tools),
		MessageCount: len(req.Messages),
	}
	tools, _ := session.MarshalData(req.Tools)
	h.ToolsDigest = digest(tools)
	for _, t := range req.Tools {
		h.ToolNames = append(h.ToolNames, t.Name)
	}
	// The conversation's digest is the digest of the messages' digests, so
	// it costs O(messages) per call without re-encoding any message.
	all := sha256.New()
	for _, d := range digests {
		all.Write([]byte(d))
		all.Write([]byte{'\n'})
		h.MessageDigests = append(h.MessageDigests, d[:12])
	}
	h.MessagesDigest = hex.EncodeToString(all.Sum(nil))
	return h
}

// messageDigest is the sha256 of a message's JSON.
func messageDigest(m session.Message) string {
	b, _ := session.MarshalData(m)
	return digest(b)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
