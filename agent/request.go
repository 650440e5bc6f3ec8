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
func requestHeader(provider string, req *llm.Request) session.RequestHeaderData {
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
	all := sha256.New()
	for _, m := range req.Messages {
		b, _ := session.MarshalData(m)
		all.Write(b)
		all.Write([]byte{'\n'})
		h.MessageDigests = append(h.MessageDigests, digest(b)[:12])
	}
	h.MessagesDigest = hex.EncodeToString(all.Sum(nil))
	return h
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
