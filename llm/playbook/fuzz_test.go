package playbook_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/session"
)

// fuzzName names the fuzzed playbook in errors.
const fuzzName = "playbook.json"

// FuzzPlaybook feeds arbitrary bytes to Parse. Parsing must never panic and
// fail only with ErrInvalid naming the file. A playbook it accepts must
// play: every authored turn of every session streams without panicking and
// ends with exactly one finish — the authored error's, an aborted one for a
// hang, else the authored or default kind — and assembles into the authored
// text, reasoning and tool calls; past the last turn the driver says
// exhausted, and nothing is left unused. Its token counts are bounded. The
// seeds are the committed fixtures' playbooks and the cases below; to fuzz:
//
//	go test -run '^$' -fuzz '^FuzzPlaybook$' -fuzztime 120s ./llm/playbook
func FuzzPlaybook(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "*", "*", "playbook.json"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"sessions":{"root":[{"text":"OK"}]}}`,
		`{"_doc":["d"],"sessions":{"root":[{"note":"n","reasoning":"think","text":"a b  c\n\u00e9\ud83d\ude00 dolor","usage":{"inputTokens":3,"outputTokens":4,"cacheReadTokens":1,"reasoningTokens":2},"finish":"max-tokens"}]}}`,
		`{"sessions":{"root":[{"text":"a","usage":{"inputTokens":1000000001,"outputTokens":-1,"cacheReadTokens":-1,"reasoningTokens":1000000000}}]}}`,
		`{"sessions":{"root":[{"toolCalls":[{"id":"call_1","name":"subagent_fork","arguments":{"prompt":"go"}},{"id":"call_2","name":"add","arguments":{"a":1,"b":2}}]},{"text":"done"}],"call_1":[{"text":"x","error":{"code":"SERVER","message":"reset"}},{"text":"y"}],"call_2":[{"text":"wait","hang":true}]}}`,
		`{"sessions":{"root":[{"error":{"code":"RATE_LIMIT","message":""}},{"hang":true}]}}`,
		`{"sessions":{"root":[{"toolCalls":[{"id":"c","name":"lookup"}]}],"c":[{"toolCalls":[{"id":"d","name":"lookup","arguments":{}}]}],"d":[{"text":"deep"}]}}`,
		`{"sessions":{"root":[{"text":"a","finish":"stop"},{"text":"b","finish":"tool-calls"}]}}`,
		`{"sessions":{"root":[{"text":"a","error":{"code":"X"},"hang":true}]}}`,
		`{"sessions":{"root":[{"text":"a","error":{"code":""}}]}}`,
		`{"sessions":{"root":[{"text":"a","finish":"error"}]}}`,
		`{"sessions":{"root":[null]}}`,
		`{"sessions":{"root":[{}]}}`,
		`{"sessions":{"root":[{"toolCalls":[{"id":"c","name":"n","arguments":[1]}]}]}}`,
		`{"sessions":{"root":[{"toolCalls":[{"id":"c","name":"n"},{"id":"c","name":"n"}]}]}}`,
		`{"sessions":{"root":[{"text":"a"}],"orphan":[{"text":"b"}]}}`,
		`{"sessions":{"root":[{"text":"a","colour":"red"}]}}`,
		`{"sessions":{}}`, `{}`, `null`, `[]`, `{"sessions":{"root":[{"text":`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		pb, err := playbook.Parse(data, fuzzName)
		if err != nil {
			if !errors.Is(err, playbook.ErrInvalid) || !strings.HasPrefix(err.Error(), "playbook: "+fuzzName+": ") {
				t.Fatalf("a parse error does not match ErrInvalid or does not name the file: %v", err)
			}
			return
		}
		play(t, pb)
	})
}

// play streams every turn of every session of a valid playbook and checks
// each stream against its turn.
func play(t *testing.T, pb *playbook.Playbook) {
	t.Helper()
	drv := playbook.NewDriver(pb, fuzzName)
	// A cancelled context ends hang turns at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	keys := slices.Sorted(maps.Keys(pb.Sessions))
	for _, key := range keys {
		ref := refFor(key)
		for i, turn := range pb.Sessions[key] {
			req := &llm.Request{Session: ref, Turn: i + 1, Step: 1, Attempt: 1, System: "system",
				Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("go")}}}}
			seq, err := drv.Stream(ctx, req)
			if err != nil {
				t.Fatalf("sessions.%s[%d]: %v", key, i, err)
			}
			var chunks []llm.Chunk
			for c := range seq {
				chunks = append(chunks, c)
			}
			checkTurn(t, key, i, turn, chunks)
		}
		if _, err := drv.Stream(ctx, &llm.Request{Session: ref, Turn: 99, Step: 1}); !errors.Is(err, playbook.ErrExhausted) {
			t.Fatalf("sessions.%s: a call past the last turn gave %v, want ErrExhausted", key, err)
		}
	}
	if err := drv.Unused(); err != nil {
		t.Fatalf("every turn was played, yet: %v", err)
	}
	if _, err := drv.Stream(ctx, &llm.Request{Session: refFor("\x00unknown")}); !errors.Is(err, playbook.ErrNoSession) {
		t.Fatalf("an unknown session gave %v, want ErrNoSession", err)
	}
}

// refFor is the live session a playbook key serves: the root, or a child
// created by the tool call of that id.
func refFor(key string) llm.SessionRef {
	if key == playbook.RootKey {
		return llm.SessionRef{ID: "live-root"}
	}
	return llm.SessionRef{ID: "live-" + key, ParentID: "live-root", ParentCallID: key, Mode: session.ModeSpawn, Depth: 1}
}

// checkTurn asserts that chunks are the stream of the authored turn.
func checkTurn(t *testing.T, key string, i int, turn *playbook.Turn, chunks []llm.Chunk) {
	t.Helper()
	finishes := 0
	var asm llm.Assembler
	for _, c := range chunks {
		if c.IsFinish() {
			finishes++
		}
		asm.Add(c)
	}
	if len(chunks) == 0 || !chunks[len(chunks)-1].IsFinish() || finishes != 1 {
		t.Fatalf("sessions.%s[%d]: %d chunks with %d finishes, want exactly one finish at the end", key, i, len(chunks), finishes)
	}
	checkUsageBounds(t, key, i, turn.Usage)
	reason := asm.Finish()
	switch want := wantFinish(turn); {
	case reason == nil || reason.Kind != want:
		t.Fatalf("sessions.%s[%d]: finish %+v, want kind %s", key, i, reason, want)
	case turn.Error != nil && (reason.Failure == nil || reason.Failure.Code != turn.Error.Code || reason.Failure.Message != turn.Error.Message):
		t.Fatalf("sessions.%s[%d]: error finish %+v, want code %q message %q", key, i, reason.Failure, turn.Error.Code, turn.Error.Message)
	}
	var text, reasoning string
	var calls []session.Part
	for _, p := range asm.Message().Content {
		switch p.Type {
		case session.PartText:
			text += p.Text
		case session.PartReasoning:
			reasoning += p.Text
		case session.PartToolCall:
			calls = append(calls, p)
		}
	}
	if text != turn.Text || reasoning != turn.Reasoning {
		t.Fatalf("sessions.%s[%d]: streamed text %q and reasoning %q, authored %q and %q", key, i, text, reasoning, turn.Text, turn.Reasoning)
	}
	if turn.Error != nil || turn.Hang {
		return // a cut-off stream's tool calls are incomplete by design
	}
	if len(calls) != len(turn.ToolCalls) {
		t.Fatalf("sessions.%s[%d]: streamed %d tool calls, authored %d", key, i, len(calls), len(turn.ToolCalls))
	}
	for j, c := range calls {
		a := turn.ToolCalls[j]
		var obj map[string]json.RawMessage
		if c.ID != a.ID || c.Name != a.Name || json.Unmarshal([]byte(c.Arguments), &obj) != nil || obj == nil {
			t.Fatalf("sessions.%s[%d].toolCalls[%d]: streamed %s %s %q, authored %s %s %s", key, i, j, c.ID, c.Name, c.Arguments, a.ID, a.Name, a.Arguments)
		}
	}
}

// maxTokens is the playbook's bound on an authored token count.
const maxTokens = 1_000_000_000

// checkUsageBounds fails when an accepted turn authors a token count out
// of bounds: every number from a file is bounded.
func checkUsageBounds(t *testing.T, key string, i int, u *playbook.Usage) {
	t.Helper()
	if u == nil {
		return
	}
	for _, n := range []*int{&u.InputTokens, &u.OutputTokens, u.CacheReadTokens, u.ReasoningTokens} {
		if n != nil && (*n < 0 || *n > maxTokens) {
			t.Fatalf("sessions.%s[%d]: accepted a token count of %d", key, i, *n)
		}
	}
}

// wantFinish is the finish kind a turn's stream must end with.
func wantFinish(turn *playbook.Turn) string {
	switch {
	case turn.Error != nil:
		return session.FinishError
	case turn.Hang:
		return session.FinishAborted
	case turn.Finish != "":
		return turn.Finish
	case len(turn.ToolCalls) > 0:
		return session.FinishToolCalls
	}
	return session.FinishStop
}
