package fakellm_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// builder writes a session log event by event, the way the runtime would.
type builder struct{ l *session.Log }

// rootLog starts the log of a root session.
func rootLog(id string) *builder {
	return &builder{l: &session.Log{Path: fixture.RootLog, Header: session.Header{ID: id, CreatedAt: 1000}}}
}

// childLog starts the log of a child created by parent's tool call callID.
// file is its fixture file name (session.<n>.jsonl).
func childLog(file, id string, parent *builder, callID string, mode session.Mode) *builder {
	return &builder{l: &session.Log{Path: file, Header: session.Header{
		ID: id, CreatedAt: 2000, ParentSession: parent.l.Header.ID, ParentCallID: callID, Mode: mode,
		Origin: session.OriginSubagent, DelegationDepth: parent.l.Header.DelegationDepth + 1,
	}}}
}

// dshChild starts a child log the way dsh writes it: no parentCallId, no mode.
func dshChild(file, id string, parent *builder, createdAt int64) *builder {
	return &builder{l: &session.Log{Path: file, Header: session.Header{
		ID: id, CreatedAt: createdAt, ParentSession: parent.l.Header.ID,
		Origin: session.OriginSubagent, DelegationDepth: 1,
	}}}
}

// seedFrom copies the parent's completed turns into the log as a fork
// backend does and stamps seedLength.
func (b *builder) seedFrom(parent *builder) *builder {
	n := session.CompletedPrefix(parent.l.Events)
	for _, e := range parent.l.Events[:n] {
		b.l.Events = append(b.l.Events, e)
	}
	b.l.Header.SeedLength = n
	return b
}

// ev appends one event with the next seq.
func (b *builder) ev(typ string, payload any) *builder {
	GinkgoHelper()
	e, err := session.NewEvent(typ, payload)
	Expect(err).NotTo(HaveOccurred())
	e.Seq = int64(len(b.l.Events))
	e.Time = 5000 + e.Seq
	b.l.Events = append(b.l.Events, e)
	return b
}

// chunks appends the assistant/chunk events of one model call.
func (b *builder) chunks(turn, step, attempt int, cs ...session.Chunk) *builder {
	for _, c := range cs {
		b.ev(session.TypeAssistantChunk, &session.ChunkData{Turn: turn, Step: step, Attempt: attempt, Chunk: c})
	}
	return b
}

// turn appends a whole user turn: one step per answer, each a text answer.
func (b *builder) turn(turn int, prompt string, answers ...string) *builder {
	b.ev(session.TypeTurnStart, session.TurnStartData{Turn: turn, Trigger: "user"})
	b.ev(session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart(prompt)}})
	for i, a := range answers {
		step := i + 1
		b.ev(session.TypeStepStart, session.StepData{Turn: turn, Step: step})
		b.chunks(turn, step, 0, answer(a)...)
		b.ev(session.TypeAssistantMessage, session.AssistantMessageData{Turn: turn, Step: step, Message: session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(a)}}})
		b.ev(session.TypeStepEnd, session.StepData{Turn: turn, Step: step})
	}
	return b.ev(session.TypeTurnEnd, session.TurnEndData{Turn: turn, Reason: session.EndReason{Kind: session.TurnCompleted}})
}

func (b *builder) log() *session.Log { return b.l }

// answer is the stream of a text answer.
func answer(text string) []session.Chunk {
	return llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, "")
}

// textOf is the text an entry's or a stream's chunks spell.
func textOf(cs []session.Chunk) string {
	var sb strings.Builder
	for _, c := range cs {
		if c.Type == session.ChunkTextDelta {
			sb.WriteString(c.Text)
		}
	}
	return sb.String()
}

// texts is the text of each entry of a script.
func texts(entries []fakellm.Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = textOf(e.Chunks)
	}
	return out
}

// writeFixture writes logs into a fresh folder under their Path names.
func writeFixture(logs ...*session.Log) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	for _, l := range logs {
		Expect(session.WriteFile(filepath.Join(dir, filepath.Base(l.Path)), l)).To(Succeed())
	}
	return dir
}

// writeFile writes content to dir/name.
func writeFile(dir, name, content string) string {
	GinkgoHelper()
	p := filepath.Join(dir, name)
	Expect(os.WriteFile(p, []byte(content), 0o644)).To(Succeed())
	return p
}

// call is the runtime stand-in: one Stream call by session ref at (turn,
// step), drained. It returns the chunks the driver served.
func call(drv llm.Driver, ref llm.SessionRef, turn, step int) ([]session.Chunk, error) {
	return callCtx(context.Background(), drv, ref, turn, step)
}

func callCtx(ctx context.Context, drv llm.Driver, ref llm.SessionRef, turn, step int) ([]session.Chunk, error) {
	seq, err := drv.Stream(ctx, &llm.Request{Session: ref, Turn: turn, Step: step, Attempt: 1})
	if err != nil {
		return nil, err
	}
	var out []session.Chunk
	for c := range seq {
		out = append(out, c)
	}
	return out, nil
}

// say is call that expects success and returns the text.
func say(drv llm.Driver, ref llm.SessionRef, turn, step int) string {
	GinkgoHelper()
	cs, err := call(drv, ref, turn, step)
	Expect(err).NotTo(HaveOccurred())
	return textOf(cs)
}

// Live session refs, with ids unlike the recorded ones.
func liveRoot(id string) llm.SessionRef { return llm.SessionRef{ID: id} }

func liveChild(id, parent, callID string, mode session.Mode) llm.SessionRef {
	return llm.SessionRef{ID: id, ParentID: parent, ParentCallID: callID, Mode: mode, Depth: 1}
}

// loadDir builds a driver from a folder of logs and its override sidecar,
// as a harness does from a fixture.
func loadDir(dir string, opts ...fakellm.Option) (*fakellm.Driver, error) {
	logs, err := session.ReadFolder(dir)
	if err != nil {
		return nil, err
	}
	ov, err := fakellm.ReadOverride(filepath.Join(dir, "replay.override.json"))
	switch {
	case err == nil:
		opts = append([]fakellm.Option{fakellm.WithOverride(ov)}, opts...)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	return fakellm.New(logs, opts...)
}
