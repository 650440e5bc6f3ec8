package responses

import (
	"encoding/json"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Meta is what the Responses API hands out with an output item and wants
// back verbatim: the item's id, a message's phase, a reasoning item's
// encrypted content. It rides on session parts and blocks as
// {"openai-responses": {...}}.
type Meta struct {
	ID               string `json:"id,omitempty"`
	Phase            string `json:"phase,omitempty"`
	EncryptedContent string `json:"encrypted_content,omitempty"`
}

// Raw is m as a part's or block's Meta, or nil when m holds nothing:
// what json.Marshal makes of map[string]Meta{API: m}, written by hand, as
// a request read whole makes one per output item it is sent back.
func (m Meta) Raw() json.RawMessage {
	if m == (Meta{}) {
		return nil
	}
	b := make([]byte, 0, len(`{"`+API+`":{"id":"","phase":"","encrypted_content":""}}`)+len(m.ID)+len(m.Phase)+len(m.EncryptedContent))
	const open = `{"` + API + `":{`
	b = append(b, open...)
	for _, f := range [...]struct{ name, val string }{{`"id":`, m.ID}, {`"phase":`, m.Phase}, {`"encrypted_content":`, m.EncryptedContent}} {
		if f.val == "" { // omitempty
			continue
		}
		if len(b) > len(open) {
			b = append(b, ',')
		}
		b = jsonscan.AppendHTMLString(append(b, f.name...), f.val)
	}
	return append(b, "}}"...)
}

// ReadMeta returns the Responses API's meta of a part or block, or the
// zero Meta when raw holds none (or holds another API's only).
func ReadMeta(raw json.RawMessage) Meta {
	if len(raw) == 0 { // before all, which escapes: a stream reads a meta per block
		return Meta{}
	}
	var all map[string]json.RawMessage
	if json.Unmarshal(raw, &all) != nil {
		return Meta{}
	}
	var m Meta
	_ = json.Unmarshal(all[API], &m) // anything else than our object reads as none
	return m
}

// partsText joins the text of content parts: input_text, output_text and
// text parts, and refusals (a refusal is what the model said). Images,
// files and audio are read before (builder.mediaParts).
func partsText(parts []Part) string {
	var b strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "input_text", "output_text", "text", "summary_text", "reasoning_text":
			b.WriteString(p.Text)
		case "refusal":
			b.WriteString(p.Refusal)
		}
	}
	return b.String()
}

// reasoningText is the text of a reasoning item: its summary parts, then
// its reasoning_text content, each part apart from the next by a blank
// line.
func reasoningText(it *Item) string {
	var texts []string
	for _, p := range it.Summary {
		texts = append(texts, p.Text)
	}
	if content, ok := readParts(it.Content); ok {
		for _, p := range content {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}
