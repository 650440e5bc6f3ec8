package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Decoded is an agent's request in agentsnap's terms, its chain resolved.
type Decoded struct {
	Model string
	// System is the instructions, then the system and developer messages
	// of the input. previous_response_id does not carry instructions.
	System string
	// Messages is the whole conversation: the one previous_response_id
	// continues, then the input. Consecutive output items (reasoning,
	// assistant messages, function calls) are one assistant message; each
	// function_call_output is a tool message.
	Messages []session.Message
	Tools    []llm.ToolSpec
	Stream   bool
	// Settings is every member of the request that is not transport, as
	// sent; tools too when they hold more than Tools does.
	Settings map[string]json.RawMessage
	Previous string // previous_response_id
	Store    bool   // store, true unless the request says false

	media *media // the agent's parts for Messages' images and files
}

// Forward returns what a live model of this API gets of the request as
// the agent sent it (llm.Request.Forward): the agent's part for each
// image and file of its conversation, those of the chain's earlier
// requests too; nil when it has none.
func (d *Decoded) Forward() *Forward {
	if d.media == nil {
		return nil
	}
	return &Forward{media: d.media}
}

// Decode reads an agent's request body, resolving previous_response_id
// and item_reference items against s.
func (s *Served) Decode(body []byte) (*Decoded, error) {
	d, _, err := s.decode(body)
	return d, err
}

// decode is Decode, also returning the builder that made the conversation:
// what DecodeNext carries to the next request's items. The usual bodies
// are read by hand (fastRead), anything else with encoding/json, whose
// errors Decode returns.
func (s *Served) decode(body []byte) (*Decoded, *builder, error) {
	if r, ok := fastRead(body); ok {
		d, b, err := s.build(r)
		r.release()
		return d, b, err
	}
	return s.decodeStd(body)
}

// decodeStd is decode with encoding/json: any body, its error the first
// it meets.
func (s *Served) decodeStd(body []byte) (*Decoded, *builder, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, nil, fmt.Errorf("the body is not a JSON object: %w", err)
	}
	var in struct {
		Request
		Tools json.RawMessage `json:"tools"` // read by decodeTools: a tool of any type
	}
	if err := json.Unmarshal(body, &in); err != nil {
		if shape := jsonscan.TypeError(body, "", err); shape != nil {
			return nil, nil, shape
		}
		return nil, nil, fmt.Errorf("the body is not a Responses request: %w", err)
	}
	if c, ok := members["conversation"]; ok && string(bytes.TrimSpace(c)) != "null" {
		return nil, nil, errors.New("conversation: agentsnap keeps no conversations (the Conversations API); continue a conversation with previous_response_id, or send it whole as input")
	}
	d, b, err := s.begin(&in.Request)
	if err != nil {
		return nil, nil, err
	}
	items, err := inputItems(in.Input)
	if err != nil {
		return nil, nil, err
	}
	if err := b.items(items); err != nil {
		return nil, nil, err
	}
	d.System, d.Messages = strings.Join(b.system, "\n\n"), b.msgs
	d.media = d.media.with(b.media)
	tools, extra, err := decodeTools(members["tools"])
	if err != nil {
		return nil, nil, err
	}
	d.Tools = tools
	d.Settings = map[string]json.RawMessage{}
	for k, v := range members {
		d.Settings[k] = v
	}
	for _, k := range transport {
		delete(d.Settings, k)
	}
	if extra {
		d.Settings["tools"] = members["tools"]
	}
	return d, b, nil
}

// build is decode of a request fastRead read. Its errors are decodeStd's:
// the body holds none that decodeStd meets before these.
func (s *Served) build(r *fastRequest) (*Decoded, *builder, error) {
	d, b, err := s.begin(&r.in)
	if err != nil {
		return nil, nil, err
	}
	if err := b.items(r.items); err != nil {
		return nil, nil, err
	}
	d.System, d.Messages = strings.Join(b.system, "\n\n"), b.msgs
	d.Tools, d.Settings = r.tools, r.settings
	d.media = d.media.with(b.media)
	return d, b, nil
}

// begin starts the Decoded of in and the builder of its conversation:
// the one previous_response_id continues, then the instructions.
func (s *Served) begin(in *Request) (*Decoded, *builder, error) {
	d := &Decoded{Model: in.Model, Stream: in.Stream, Previous: in.PreviousResponseID, Store: in.Store == nil || *in.Store}
	b := &builder{served: s}
	if in.PreviousResponseID != "" {
		conv, from, media, err := s.conversation(in.PreviousResponseID)
		if err != nil {
			return nil, nil, err
		}
		b.msgs, b.continued, d.media = conv, from, media
	}
	if in.Instructions != "" {
		b.system = append(b.system, in.Instructions)
		b.instructions = true
	}
	return d, b, nil
}

// inputItems reads input: a string is one user message.
func inputItems(raw json.RawMessage) ([]Item, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return nil, nil
	case raw[0] == '"':
		return []Item{{Type: ItemMessage, Role: session.RoleUser, Content: raw}}, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("input: want a string or an array of items")
	}
	items := make([]Item, len(list))
	for i, r := range list {
		if err := json.Unmarshal(r, &items[i]); err != nil {
			if shape := jsonscan.TypeError(r, fmt.Sprintf("input[%d]", i), err); shape != nil {
				return nil, shape
			}
			return nil, fmt.Errorf("input[%d]: not an item: %w", i, err)
		}
	}
	return items, nil
}

// builder makes the conversation of a request's items.
type builder struct {
	served *Served
	msgs   []session.Message
	system []string
	// before are the messages before msgs that a function_call_output
	// may answer a call of (a request read against the last one: the
	// last one's), none when msgs begins the conversation.
	before []session.Message
	open   bool // the last message is an assistant message this input is building
	// instructions reports whether system begins with the instructions
	// (then the input's system and developer texts).
	instructions bool
	// continued is the request DecodeNext read that the response named
	// by previous_response_id answered, if any (Served.PutNext).
	continued *Next
	// media is the agent's part for each image and file of msgs this
	// builder read.
	media llm.Media
}

// name is the function name of call id: the latest function call with
// that id before, in msgs or else in before.
func (b *builder) name(id string) string {
	if name, ok := session.LatestCallName(b.msgs, id); ok {
		return name
	}
	name, _ := session.LatestCallName(b.before, id)
	return name
}

// items adds a request's input items, in order.
func (b *builder) items(items []Item) error {
	for i := range items {
		if err := b.item(&items[i]); err != nil {
			return fmt.Errorf("input[%d]: %w", i, err)
		}
	}
	return nil
}

func (b *builder) item(it *Item) error {
	switch it.Type {
	case "", ItemMessage:
		return b.message(it)
	case ItemFunctionCall:
		if it.CallID == "" {
			return errors.New("a function_call needs its call_id")
		}
		args := ""
		if it.Arguments != nil {
			args = *it.Arguments
		}
		b.assistant(session.Part{Type: session.PartToolCall, ID: it.CallID, Name: it.Name, Arguments: args, Meta: b.meta(it, Meta{ID: it.ID})})
	case ItemFunctionCallOutput:
		if it.CallID == "" {
			return errors.New("a function_call_output needs its call_id")
		}
		text, err := contentText(it.Output)
		content := []session.Part{session.TextPart(text)}
		if err != nil {
			if content, err = b.mediaParts(it.Output, err, true); err != nil {
				return inContent("output", err)
			}
		}
		b.add(session.Message{Role: session.RoleTool, Content: []session.Part{{
			Type: session.PartToolResult, ToolCallID: it.CallID, Name: b.name(it.CallID),
			Content: content,
		}}})
	case ItemReasoning:
		m := Meta{ID: it.ID}
		if it.EncryptedContent != nil {
			m.EncryptedContent = *it.EncryptedContent
		}
		b.assistant(session.Part{Type: session.PartReasoning, Text: reasoningText(it), Meta: b.meta(it, m)})
	case ItemReference:
		p, err := b.served.Item(it.ID)
		if err != nil {
			return err
		}
		b.assistant(p)
	default:
		return fmt.Errorf("items of type %q are not served; agentsnap serves messages, function_call, function_call_output, reasoning and item_reference items (function tools only)", it.Type)
	}
	return nil
}

func (b *builder) message(it *Item) error {
	text, err := contentText(it.Content)
	if err != nil {
		if it.Role != session.RoleUser {
			return inContent("content", err)
		}
		parts, err := b.mediaParts(it.Content, err, false)
		if err != nil {
			return inContent("content", err)
		}
		b.add(session.Message{Role: session.RoleUser, Content: parts})
		return nil
	}
	switch it.Role {
	case session.RoleUser:
		b.add(session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(text)}})
	case session.RoleAssistant:
		b.assistant(session.Part{Type: session.PartText, Text: text, Meta: b.meta(it, Meta{ID: it.ID, Phase: it.Phase})})
	case "system", "developer":
		b.system = append(b.system, text)
		b.open = false
	case "":
		return errors.New("a message needs its role (user, assistant, system or developer), and another item its type")
	default:
		return fmt.Errorf("unknown role %q; want user, assistant, system or developer", it.Role)
	}
	return nil
}

// meta is the meta of an output item sent back: the recorded part's, when
// this run served the item (its id is a transport detail, derived from the
// call, and what the API wants back is what the recording holds), else
// what the item says.
func (b *builder) meta(it *Item, sent Meta) json.RawMessage {
	if raw, ok := b.served.Recorded(it.ID); ok {
		return raw
	}
	return sent.Raw()
}

// add appends a message that is not an assistant's.
func (b *builder) add(m session.Message) {
	b.msgs = append(b.msgs, m)
	b.open = false
}

// assistant appends p to the assistant message the input is building.
func (b *builder) assistant(p session.Part) {
	if !b.open {
		b.msgs = append(b.msgs, session.Message{Role: session.RoleAssistant, Content: []session.Part{}})
		b.open = true
	}
	last := &b.msgs[len(b.msgs)-1]
	last.Content = append(last.Content, p)
}

// contentText reads a content or output member: a string, or an array of
// parts whose text counts (see partsText). A part that is no text (an
// image, a file, audio) is a *notTextError, never dropped: a user
// message's and a function output's are read by builder.mediaParts.
func contentText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	if text, ok := fastText(raw); ok {
		return text, nil
	}
	return stdText(raw)
}

// stdText is contentText with encoding/json, for raw trimmed, neither
// empty nor null.
func stdText(raw []byte) (string, error) {
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	var parts []Part
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("want a string or an array of content parts")
	}
	if k, typ := notText(parts); k >= 0 {
		return "", &notTextError{k, typ}
	}
	return partsText(parts), nil
}

// decodeTools reads a request's tools: its function tools as ToolSpecs,
// and whether the array holds more than they say (a tool of another type,
// strict, …), in which case it is a setting too.
func decodeTools(raw json.RawMessage) ([]llm.ToolSpec, bool, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, false, nil
	}
	var list []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, false, errors.New("tools: want an array of tool objects")
	}
	var specs []llm.ToolSpec
	extra := false
	for i, t := range list {
		var typ, name, desc string
		if json.Unmarshal(t["type"], &typ) != nil || typ != "function" {
			extra = true
			continue
		}
		if err := json.Unmarshal(t["name"], &name); err != nil || name == "" {
			return nil, false, fmt.Errorf("tools[%d]: a function tool needs its name, a string", i)
		}
		if d, ok := t["description"]; ok && json.Unmarshal(d, &desc) != nil {
			return nil, false, fmt.Errorf("tools[%d] (%s): description: want a string", i, name)
		}
		for k := range t {
			switch k {
			case "type", "name", "description", "parameters":
			default:
				extra = true
			}
		}
		specs = append(specs, llm.ToolSpec{Name: name, Description: desc, Parameters: t["parameters"]})
	}
	return specs, extra, nil
}
