package anthropic

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
)

// Forward is what an agent's Messages request carries beyond agentsnap's
// terms that a live Messages model gets as the agent sent it: the wire
// layer hands it over in llm.Request.Forward, and the driver sends it on
// with the call. It is not recorded. A cache breakpoint changes what a
// call costs, not what the model answers (the cache's usage is recorded
// with the answer), so moving one is not drift. A beta may change the
// answer, but a request/header member for it would fail, at its first
// call, every fixture recorded before from an agent that sends one, and
// its absence could not tell such a fixture from one recorded without a
// beta: so a beta the agent adds or drops is not drift either, and shows
// only in a new recording. The agent's anthropic-version is not forwarded:
// it would change the shape of the live answer, which the driver reads in
// its own version (Config.Version), not the shape of the answer the agent
// gets, which the wire layer writes (ServeStream) the same way recording
// or replaying.
type Forward struct {
	// Cache is where the request's cache_control members were; nil when
	// it had none.
	Cache *Cache
	// Betas are the values of the agent's anthropic-beta headers, as
	// sent.
	Betas []string
	// Media is the agent's own block for each image and file part of the
	// request (Call.Media): the log holds only their digests, which are
	// recorded, so unlike the above a changed image is drift.
	Media llm.Media
}

// Cache is where a request's prompt cache breakpoints (its cache_control
// members) were, in agentsnap's terms of the request (Call): the system
// prompt's blocks, the tools and the parts of the conversation.
type Cache struct {
	// System is the system prompt's blocks as sent, when one of them has
	// a cache_control: the prompt goes out as these blocks, not as one
	// string.
	System Content
	// Tools holds each tool's cache_control by the tool's index (nil: it
	// has none), or is nil when none has one.
	Tools []json.RawMessage
	// Marks are the conversation's breakpoints, in the order of the parts
	// they mark.
	Marks []Mark
}

// Mark is the cache_control of the block that became part Part of
// message Message of Call.Messages; Inner marks the last marked text
// block of a tool result's content rather than the tool_result block,
// Part then being the text part of the result's content it became (the
// result's text goes back as one text block, or one between each two of
// its images, which then carries it; an image or document keeps its own
// cache_control in its block, Media).
type Mark struct {
	Message, Part int
	Inner         bool
	CacheControl  json.RawMessage
}

// mediaOf returns the agent's blocks of a call decoded from this API, or
// nil.
func mediaOf(req *llm.Request) llm.Media {
	if f := forwardOf(req); f != nil {
		return f.Media
	}
	return nil
}

// forwardOf returns the Forward of a call decoded from this API, or nil.
func forwardOf(req *llm.Request) *Forward {
	if req.API != API {
		return nil
	}
	f, _ := req.Forward.(*Forward)
	return f
}

// BetaHeader is the header that names the API's betas a call uses.
const BetaHeader = "Anthropic-Beta"

// CallHeader returns the anthropic-beta headers of the agent's request a
// call decoded from this API carries (Forward.Betas), or nil: the live
// driver sends them besides its own.
func (Messages) CallHeader(req *llm.Request) http.Header {
	if f := forwardOf(req); f != nil && len(f.Betas) > 0 {
		return http.Header{BetaHeader: f.Betas}
	}
	return nil
}

// cacheOf returns the breakpoints a call decoded from this API carries,
// or nil.
func cacheOf(req *llm.Request) *Cache {
	if f := forwardOf(req); f != nil {
		return f.Cache
	}
	return nil
}

// newCache returns the breakpoints of a request's system blocks, tools
// and conversation, or nil when it has none.
func newCache(system Content, tools []json.RawMessage, marks []Mark) *Cache {
	marked := false
	for i := range system {
		marked = marked || system[i].CacheControl != nil
	}
	if !marked {
		system = nil
	}
	if system == nil && tools == nil && marks == nil {
		return nil
	}
	return &Cache{System: system, Tools: tools, Marks: marks}
}

// withMarks returns c with marks for its conversation's marks: c itself
// when they are c's, the same slice (a request that moved a breakpoint
// has as many as the last one, in other places).
func (c *Cache) withMarks(marks []Mark) *Cache {
	if len(marks) == 0 {
		marks = nil // as DecodeRequest reads a conversation without any
	}
	if old := c.marks(); len(marks) == len(old) && (len(marks) == 0 || &marks[0] == &old[0]) {
		return c
	}
	if c == nil {
		return &Cache{Marks: marks}
	}
	return newCache(c.System, c.Tools, marks)
}

// marks returns c's conversation marks; none for a nil c.
func (c *Cache) marks() []Mark {
	if c == nil {
		return nil
	}
	return c.Marks
}

// system returns the system prompt's blocks to send for prompt, the text
// the request carries: c's, when they make that text, else nil.
func (c *Cache) system(prompt string) Content {
	if c == nil || c.System == nil {
		return nil
	}
	var b strings.Builder
	for i, blk := range c.System {
		if i > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(blk.Text)
	}
	if b.String() != prompt {
		return nil
	}
	return c.System
}

// tool returns the cache_control of tool i of n, or nil.
func (c *Cache) tool(i, n int) json.RawMessage {
	if c == nil || len(c.Tools) != n {
		return nil
	}
	return c.Tools[i]
}
