package gemini

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Call is an agent's generateContent request in agentsnap's terms: what
// the wire layer records and replays it by.
type Call struct {
	System   string
	Messages []session.Message
	Tools    []llm.ToolSpec
	// Settings holds the request's other members as sent, by name
	// (generationConfig, toolConfig, safetySettings, cachedContent, …),
	// and, under "tools", the tools that are not function declarations
	// (googleSearch, codeExecution, …), or every tool as sent when a
	// declaration says more than Tools holds (OpenAPI parameters, which
	// Tools holds converted; behavior, response, responseJsonSchema, …).
	// A member whose value is an empty object says nothing and is left
	// out: the official Go SDK sends generationConfig: {} whenever a
	// config is given.
	Settings map[string]json.RawMessage
	// Media is the agent's own part for each image and file part of
	// Messages (Forward.Media); nil when there are none.
	Media llm.Media
	// Responses is the agent's own functionResponse.response for each
	// tool result of Messages whose response says other than its text
	// would (Forward.Responses); nil when there are none.
	Responses Responses
}

// DecodeRequest reads an agent's request body. The conversation is read
// as the API means it: consecutive model contents are one answer (an
// agent that keeps a streamed answer as it came has one content per
// event), adjacent text parts one text up to the part that carries a
// thought signature, thought parts reasoning, and each functionResponse a
// tool result of its own — paired with its call by id, or, when it names
// none, with the first call of that name in the answer before it. A user
// content's inlineData and fileData parts are image parts (an image/
// mimeType) or file parts (see session.Attachment), the text between them
// a part each; anywhere else they are refused, as are the parts agentsnap
// does not record yet (executableCode, …).
func DecodeRequest(body []byte) (*Call, error) {
	call, _, err := decodeWhole(body)
	return call, err
}

// decodeStd is decodeWhole with encoding/json: the reading fastWhole is
// held to, and what reads (and words the error of) every body it leaves.
func decodeStd(body []byte) (*Call, *conversation, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		if shape := jsonscan.TypeError(body, "", err); shape != nil {
			return nil, nil, shape
		}
		return nil, nil, fmt.Errorf("the body is not a JSON object: %w", err)
	}
	var in Request
	if err := json.Unmarshal(body, &in); err != nil {
		if shape := jsonscan.TypeError(body, "", err); shape != nil {
			return nil, nil, shape
		}
		return nil, nil, fmt.Errorf("the body is not a generateContent request: %w", err)
	}
	out := &Call{Settings: map[string]json.RawMessage{}}
	if in.SystemInstruction != nil {
		var err error
		if out.System, err = systemText(in.SystemInstruction); err != nil {
			return nil, nil, err
		}
	}
	c := newConversation()
	if err := c.addAll(0, in.Contents); err != nil {
		return nil, nil, err
	}
	out.Messages, out.Media, out.Responses = c.messages(), c.media, c.responses
	var extra []json.RawMessage
	var err error
	if out.Tools, extra, err = tools(members["tools"]); err != nil {
		return nil, nil, err
	}
	for k, v := range members {
		switch k {
		case "contents", "systemInstruction", "tools":
		default:
			if !emptyObject(v) {
				out.Settings[k] = v
			}
		}
	}
	switch {
	case declarationsSayMore(members["tools"]):
		out.Settings["tools"] = members["tools"]
	case len(extra) > 0:
		b, _ := json.Marshal(extra)
		out.Settings["tools"] = b
	}
	return out, c, nil
}

// systemText is the system instruction's text: its parts, each a text.
func systemText(si *Content) (string, error) {
	var s string
	for i, p := range si.Parts {
		if p.Text == nil || p.unsupported() != "" || p.FunctionCall != nil || p.FunctionResponse != nil {
			return "", fmt.Errorf("systemInstruction.parts[%d]: only text parts are a system instruction", i)
		}
		s += *p.Text
	}
	return s, nil
}

func emptyObject(v json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(v, &m) == nil && m != nil && len(m) == 0
}

// conversation builds the messages of a request.
type conversation struct {
	media     llm.Media // of out's images and files, a map of its own
	responses Responses // of out's tool results, a map of its own
	out       []session.Message
	lastModel int   // index in out of the model message the last content added to, or -1
	paired    calls // of that message's calls, those a result was paired with by name
}

func newConversation() *conversation {
	return &conversation{lastModel: -1}
}

// calls is a set of a model message's calls, by their index in its
// content: the first 64 as bits, without an allocation (an answer makes a
// few calls).
type calls struct {
	bits uint64
	more map[int]bool
}

func (s *calls) has(k int) bool {
	if k < 64 {
		return s.bits&(1<<k) != 0
	}
	return s.more[k]
}

func (s *calls) add(k int) {
	if k < 64 {
		s.bits |= 1 << k
		return
	}
	if s.more == nil {
		s.more = map[int]bool{}
	}
	s.more[k] = true
}

// clone is s, to change without changing s.
func (s calls) clone() calls { return calls{s.bits, maps.Clone(s.more)} }

// addAll adds contents, the first of them contents[first] of the request.
func (c *conversation) addAll(first int, contents []Content) error {
	for k := range contents {
		if err := c.add(first+k, &contents[k]); err != nil {
			return err
		}
	}
	return nil
}

// add adds contents[i] of the request.
func (c *conversation) add(i int, content *Content) error {
	switch role := content.Role; role {
	case "model":
		return c.model(i, content)
	case "user", "", "function":
		return c.user(i, content)
	default:
		return fmt.Errorf("contents[%d]: unknown role %q; want user or model", i, role)
	}
}

// messages returns the messages built, never nil.
func (c *conversation) messages() []session.Message {
	if c.out == nil {
		c.out = []session.Message{}
	}
	return c.out
}

// model adds a model content: to the model message just before it, if the
// previous content was one.
func (c *conversation) model(i int, content *Content) error {
	if c.lastModel < 0 || c.lastModel != len(c.out)-1 {
		c.out = append(c.out, session.Message{Role: session.RoleAssistant, Content: []session.Part{}})
		c.lastModel, c.paired = len(c.out)-1, calls{}
	}
	m := &c.out[c.lastModel]
	for k := range content.Parts {
		p := &content.Parts[k]
		where := partAt{i, k}
		if kind := p.unsupported(); kind != "" {
			return llm.NotRecorded(where.String(), kind)
		}
		switch {
		case p.FunctionResponse != nil:
			return fmt.Errorf("%s: a functionResponse in a model content; send function responses in a user content", where)
		case p.FunctionCall != nil:
			args, ok := argsText(p.FunctionCall.Args)
			if !ok {
				return fmt.Errorf("%s: functionCall.args is not a JSON object", where)
			}
			fc := p.FunctionCall
			m.Content = append(m.Content, session.Part{Type: session.PartToolCall, ID: fc.ID, Name: fc.Name, Arguments: args, Meta: Meta(p.ThoughtSignature)})
		case p.Text != nil:
			typ := session.PartText
			if p.Thought {
				typ = session.PartReasoning
			}
			appendText(m, typ, *p.Text, p.ThoughtSignature)
		case p.ThoughtSignature != "":
			// A signature alone belongs to what came before it.
			if n := len(m.Content); n > 0 && m.Content[n-1].Meta == nil {
				m.Content[n-1].Meta = Meta(p.ThoughtSignature)
			} else {
				m.Content = append(m.Content, session.Part{Type: session.PartText, Meta: Meta(p.ThoughtSignature)})
			}
		}
	}
	return nil
}

// appendText adds text to m: to its last part when that is of the same
// type and carries no signature yet (the streamed pieces of one block).
func appendText(m *session.Message, typ, text, sig string) {
	if n := len(m.Content); n > 0 {
		if last := &m.Content[n-1]; last.Type == typ && last.Meta == nil {
			last.Text += text
			last.Meta = Meta(sig)
			return
		}
	}
	if text == "" && sig == "" {
		return
	}
	m.Content = append(m.Content, session.Part{Type: typ, Text: text, Meta: Meta(sig)})
}

// user adds a user content: its text as one user message, and each
// function response as a tool result, in the order of the parts.
func (c *conversation) user(i int, content *Content) error {
	var text *session.Message
	for k := range content.Parts {
		p := &content.Parts[k]
		where := partAt{i, k}
		if isSet(p.InlineData) || isSet(p.FileData) {
			if text == nil {
				c.out = append(c.out, session.Message{Role: session.RoleUser, Content: []session.Part{}})
				text = &c.out[len(c.out)-1]
			}
			part, err := c.attach(where, llm.Place{Message: len(c.out) - 1, Part: len(text.Content)}, p)
			if err != nil {
				return err
			}
			text.Content = append(text.Content, part)
			continue
		}
		if kind := p.unsupported(); kind != "" {
			return llm.NotRecorded(where.String(), kind)
		}
		switch {
		case p.FunctionCall != nil:
			return fmt.Errorf("%s: a functionCall in a user content; function calls are the model's", where)
		case p.FunctionResponse != nil:
			part, err := c.result(where, p.FunctionResponse)
			if err != nil {
				return err
			}
			c.responses = c.responses.keep(len(c.out), &part, p.FunctionResponse.Response)
			c.out = append(c.out, session.Message{Role: session.RoleTool, Content: []session.Part{part}})
			text = nil
		case p.Text != nil:
			if text == nil {
				c.out = append(c.out, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("")}})
				text = &c.out[len(c.out)-1]
			}
			if last := &text.Content[len(text.Content)-1]; last.Type == session.PartText {
				last.Text += *p.Text
			} else {
				text.Content = append(text.Content, session.TextPart(*p.Text))
			}
		}
	}
	if len(content.Parts) == 0 {
		c.out = append(c.out, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("")}})
	}
	return nil
}

// isSet reports whether a member was sent, and not as null.
func isSet(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

// attach returns the image or file part of p, an inlineData or fileData
// part at where, and keeps p as sent in c.media, for the part's place at
// in the conversation.
func (c *conversation) attach(where partAt, at llm.Place, p *Part) (session.Part, error) {
	if isSet(p.MediaResolution) {
		// It changes what the model sees, and the log has no place for it
		// yet: dropped, the live model would see another image than the
		// agent asked for, and a replay could not tell.
		return session.Part{}, llm.NotRecorded(where.String(), "mediaResolution")
	}
	var d struct {
		MimeType string `json:"mimeType"`
		Data     string `json:"data"`
		FileURI  string `json:"fileUri"`
	}
	member, raw := "inlineData", p.InlineData
	if !isSet(raw) {
		member, raw = "fileData", p.FileData
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		if shape := jsonscan.TypeError(raw, where.String()+"."+member, err); shape != nil {
			return session.Part{}, shape
		}
		return session.Part{}, fmt.Errorf("%s.%s: %w", where, member, err)
	}
	if member == "fileData" && d.FileURI == "" || member == "inlineData" && d.MimeType == "" {
		return session.Part{}, fmt.Errorf("%s.%s: want its mimeType and data (inlineData) or fileUri (fileData)", where, member)
	}
	kind := session.PartFile
	if strings.HasPrefix(d.MimeType, "image/") {
		kind = session.PartImage
	}
	var part session.Part
	var err error
	if member == "inlineData" {
		part, err = llm.AttachBase64(kind, d.MimeType, "", d.Data)
	} else {
		part, err = llm.AttachURL(kind, d.MimeType, "", d.FileURI)
	}
	if err != nil {
		return session.Part{}, fmt.Errorf("%s.%s: %w", where, member, err)
	}
	block := slices.Concat([]byte(`{"`+member+`":`), bytes.TrimSpace(raw))
	if clip := p.clip(); clip != nil {
		// The clip changes what the model sees: recorded, so another one
		// is drift, and sent as the agent sent it.
		canon, err := jsonscan.AppendCanonical(nil, clip)
		if err != nil || canon[0] != '{' {
			return session.Part{}, fmt.Errorf("%s.videoMetadata: want an object (startOffset, endOffset, fps)", where)
		}
		part.Attachment.VideoMetadata = canon
		block = append(append(block, `,"videoMetadata":`...), bytes.TrimSpace(clip)...)
	}
	block = append(block, '}')
	c.media = c.media.Add(&part, at, block)
	return part, nil
}

// partAt names contents[i].parts[k] in an error, formatted only then: a
// request's every part is read, and seldom fails.
type partAt struct{ i, k int }

func (p partAt) String() string { return fmt.Sprintf("contents[%d].parts[%d]", p.i, p.k) }

// result reads a function response as a tool-result part.
func (c *conversation) result(where partAt, fr *FunctionResponse) (session.Part, error) {
	if t := bytes.TrimSpace(fr.Parts); len(t) > 0 && string(t) != "null" && string(t) != "[]" {
		return session.Part{}, fmt.Errorf("%s: functionResponse.parts (media in a result), which agentsnap cannot record", where)
	}
	text, isErr, err := responseText(fr.Response)
	if err != nil {
		return session.Part{}, fmt.Errorf("%s: functionResponse.response: %w", where, err)
	}
	meta, err := resultMeta(fr)
	if err != nil {
		return session.Part{}, fmt.Errorf("%s: %w", where, err)
	}
	id := fr.ID
	if id == "" {
		id = c.callByName(fr.Name)
	}
	return session.Part{Type: session.PartToolResult, ToolCallID: id, Name: fr.Name, Content: []session.Part{session.TextPart(text)}, IsError: isErr, Meta: meta}, nil
}

// callByName returns the id of the first call named name in the last
// model message that no result was paired with yet, marking it paired.
func (c *conversation) callByName(name string) string {
	if c.lastModel < 0 {
		return ""
	}
	for k, p := range c.out[c.lastModel].Content {
		if p.Type == session.PartToolCall && p.Name == name && !c.paired.has(k) {
			c.paired.add(k)
			return p.ID
		}
	}
	return ""
}

// responseText reads functionResponse.response: a response of one
// member, "error" (a result that is an error) or "output", is that
// member's value, a string as it is and anything else as canonical JSON;
// any other response — neither key, or one beside other members — is the
// whole object, so that a change in any member is a change in the text
// (an "error" among them still marks an error).
func responseText(raw json.RawMessage) (string, bool, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return "", false, nil
	}
	// The members read as encoding/json reads them into a map: names
	// decoded, the last of a name counts.
	var errV, outV []byte
	others := false
	if jsonscan.Object(t, func(key []byte, escaped bool, val []byte) error {
		if escaped {
			key = []byte(jsonscan.Key(key, true))
		}
		switch string(key) {
		case "error":
			errV = val
		case "output":
			outV = val
		default:
			others = true
		}
		return nil
	}) != nil {
		return "", false, errors.New("want a JSON object")
	}
	v, isErr := t, errV != nil
	switch {
	case others || errV != nil && outV != nil:
	case errV != nil:
		v = errV
	case outV != nil:
		v = outV
	}
	switch {
	case v[0] == '"':
		s, err := jsonscan.String(v)
		return s, isErr, err
	case jsonscan.IsNull(v):
		return "", isErr, nil // a null reads as no text, as a string does
	}
	s, err := canonicalJSON(v)
	return s, isErr, err
}
