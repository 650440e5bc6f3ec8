package loop_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/agent/internal/loop"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/persistence/memory"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/gomega"
)

// scripted is an in-test driver: each session id has a list of answers,
// served in order. It records every request.
type scripted struct {
	mu       sync.Mutex
	answers  map[string][][]llm.Chunk
	requests []*llm.Request
	// before, if set, runs at the start of every Stream call (outside the lock).
	before func(req *llm.Request)
}

func newScripted() *scripted { return &scripted{answers: map[string][][]llm.Chunk{}} }

// say queues an assistant text answer for session id.
func (d *scripted) say(id, text string) *scripted {
	return d.chunks(id, llm.StreamMessage(msg(session.TextPart(text)), &session.Usage{InputTokens: 10, OutputTokens: 3}, ""))
}

// calls queues an answer that calls tools.
func (d *scripted) calls(id string, parts ...session.Part) *scripted {
	return d.chunks(id, llm.StreamMessage(msg(parts...), nil, ""))
}

func (d *scripted) chunks(id string, cs []llm.Chunk) *scripted {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answers[id] = append(d.answers[id], cs)
	return d
}

func (d *scripted) Stream(ctx context.Context, req *llm.Request) (iter.Seq[llm.Chunk], error) {
	if d.before != nil {
		d.before(req)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	cp := *req
	cp.Messages = slices.Clone(req.Messages)
	d.requests = append(d.requests, &cp)
	q := d.answers[req.Session.ID]
	if len(q) == 0 {
		return nil, fmt.Errorf("scripted: no answer left for session %s", req.Session.ID)
	}
	d.answers[req.Session.ID] = q[1:]
	return slices.Values(q[0]), nil
}

func (d *scripted) requestsOf(id string) []*llm.Request {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []*llm.Request
	for _, r := range d.requests {
		if r.Session.ID == id {
			out = append(out, r)
		}
	}
	return out
}

func msg(parts ...session.Part) llm.Message {
	return llm.Message{Role: session.RoleAssistant, Content: parts}
}

func call(id, name, args string) session.Part {
	return session.Part{Type: session.PartToolCall, ID: id, Name: name, Arguments: args}
}

func spawn(id, prompt string) session.Part {
	return call(id, loop.SpawnToolName, fmt.Sprintf(`{"description":"sub","prompt":%q}`, prompt))
}

func fork(id, prompt string) session.Part {
	return call(id, loop.ForkToolName, fmt.Sprintf(`{"description":"sub","prompt":%q}`, prompt))
}

var epoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// rig is a runtime over a scripted driver and a memory store.
type rig struct {
	driver *scripted
	store  *memory.Store
	rt     *loop.Runtime
}

func newRig(d *scripted, mutate ...func(*loop.Config)) *rig {
	store := memory.New()
	cfg := loop.Config{
		Driver:   d,
		Store:    store,
		Provider: "scripted",
		Model:    "test-model",
		System:   "You are a test agent.",
		Tools:    loop.NewRegistry(loop.SpawnTool(), loop.ForkTool()),
		Clock:    loop.FixedClock(epoch),
		IDs:      loop.LineageIDs("root"),
	}
	for _, m := range mutate {
		m(&cfg)
	}
	rt, err := loop.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	return &rig{driver: d, store: store, rt: rt}
}

func (r *rig) log(id string) *session.Log {
	l, err := r.store.Load(context.Background(), id)
	Expect(err).NotTo(HaveOccurred(), "session %s", id)
	return l
}

// compact drops assistant/chunk events so event lists stay readable.
func compact(evs []session.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type != session.TypeAssistantChunk {
			out = append(out, e.Type)
		}
	}
	return out
}

func decode[T any](e session.Event) T {
	var v T
	Expect(e.Decode(&v)).To(Succeed())
	return v
}

func eventsOf(l *session.Log, typ string) []session.Event {
	var out []session.Event
	for _, e := range l.Events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// llmChunks streams a text answer.
func llmChunks(text string) []llm.Chunk {
	return llm.StreamMessage(msg(session.TextPart(text)), nil, "")
}

type (
	ctxT = context.Context
	rawT = json.RawMessage
)
