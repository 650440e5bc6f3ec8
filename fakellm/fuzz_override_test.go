package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// overrideLogs is the scenario FuzzOverride applies sidecars to: the root
// and fork child of the derivation seeds.
func overrideLogs(t *testing.T) []*session.Log {
	t.Helper()
	var logs []*session.Log
	for i, l := range []*lineLog{rootSeed(), forkSeed()} {
		name := fixture.RootLog
		if i > 0 {
			name = fixture.ChildLog(i)
		}
		log, err := session.Read(bytes.NewReader(l.bytes()), name)
		if err != nil {
			t.Fatalf("seed log %s: %v", name, err)
		}
		logs = append(logs, log)
	}
	return logs
}

// FuzzOverride feeds arbitrary sidecars to ParseOverride. Parsing must never
// panic and fail only with ErrBadOverride naming the file; a parsed sidecar
// must re-encode to one that parses equal; applied to a recorded scenario,
// it must build a driver that replays every entry as a stream ending in
// exactly one finish, or fail with an error.
func FuzzOverride(f *testing.F) {
	for _, s := range []string{
		`{"session.jsonl": {"patch": {"0": {"kind": "throw", "chunks": [], "code": "RATE_LIMIT", "message": "slow down"}}}}`,
		`{"session.1.jsonl": {"replace": [{"kind": "hang", "chunks": [{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"wa"}]}]}}`,
		`{"root": {"patch": {"1": {"kind": "chunks", "turn": 2, "step": 1, "chunks": [{"type":"finish","reason":{"kind":"stop"}}]}}}, "child": {"replace": []}}`,
		"{\"session.jsonl\": {\"replace\": [{\"kind\": \"chunks\", \"chunks\": [\n  {\"type\": \"text-delta\", \"index\": 0, \"text\": \"hi\", \"meta\": {\n    \"x\": [1,\n 2]\n  }},\n  {\"type\": \"finish\", \"reason\": {\"kind\": \"stop\"}}\n]}]}}",
		`{"session.jsonl": {"replace": [{"kind":"chunks","attempt":3,"chunks":[{"type":"usage","usage":{"inputTokens":1,"outputTokens":2,"cacheReadTokens":0}},{"type":"finish","reason":{"kind":"error","failure":{"message":"m","code":"C","status":503}}}]}]}}`,
		`{"session.jsonl": {"patch": {"9": {"kind": "hang", "chunks": []}}}}`,
		`{"session.jsonl": {"patch": {"01": {"kind": "hang", "chunks": []}}}}`,
		`{"session.jsonl": {"patch": {"-1": {"kind": "hang", "chunks": []}}}}`,
		`{"session.jsonl": {"patch": {}, "replace": []}}`,
		`{"session.jsonl": {}}`,
		`{"session.9.jsonl": {"replace": []}}`,
		`{"session.jsonl": {"replace": [{"kind": "throw", "chunks": []}]}}`,
		`{"session.jsonl": {"replace": [{"kind": "chunks", "chunks": [], "code": "X"}]}}`,
		`{"session.jsonl": {"replace": [{"kind": "hang", "chunks": [{"type":"finish","reason":{"kind":"stop"}}]}]}}`,
		`{"session.jsonl": {"replace": [{"kind": "chunks", "chunks": [{"type":"finish"}]}]}}`,
		`{"session.jsonl": {"replace": [{"kind": "chunks", "extra": 1}]}}`,
		`{"session.jsonl": {"replace": null}}`,
		`{"a": {"replace": []}, "a": {"patch": {}}}`,
		`{}`, `[]`, `null`, `{"session.jsonl": [`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "replay.override.json"
		o, err := fakellm.ParseOverride(data, name)
		if err != nil {
			if !errors.Is(err, fakellm.ErrBadOverride) || !strings.HasPrefix(err.Error(), "fakellm: "+name+": ") {
				t.Fatalf("a sidecar error does not match ErrBadOverride or does not name the file: %v", err)
			}
			return
		}
		if o.Path != name {
			t.Fatalf("Path is %q, want %q", o.Path, name)
		}
		checkOverrideRoundTrip(t, o)
		replayOverride(t, o)
	})
}

// checkOverrideRoundTrip re-encodes a parsed sidecar in its documented shape
// and asserts it parses back equal.
func checkOverrideRoundTrip(t *testing.T, o *fakellm.Override) {
	t.Helper()
	top := map[string]json.RawMessage{}
	for key, so := range o.Sessions {
		if (so.Replace == nil) == (so.Patch == nil) {
			t.Fatalf("session %q: want exactly one of replace and patch, got %+v", key, so)
		}
		for _, e := range append(so.Replace, mapValues(so.Patch)...) {
			if err := e.Validate(); err != nil {
				t.Fatalf("session %q: a parsed entry does not validate: %v", key, err)
			}
		}
		var v []byte
		if so.Replace != nil {
			v = append(append([]byte(`{"replace":`), fakellm.MarshalScript(so.Replace)...), '}')
		} else {
			patch := map[string]fakellm.Entry{}
			for i, e := range so.Patch {
				patch[fmt.Sprint(i)] = e
			}
			p, err := json.Marshal(patch)
			if err != nil {
				t.Fatalf("session %q: encoding the patch: %v", key, err)
			}
			v = append(append([]byte(`{"patch":`), p...), '}')
		}
		top[key] = v
	}
	js, err := json.Marshal(top)
	if err != nil {
		t.Fatalf("encoding the sidecar: %v", err)
	}
	back, err := fakellm.ParseOverride(js, o.Path)
	if err != nil {
		t.Fatalf("the re-encoded sidecar does not parse: %v\n%s", err, js)
	}
	if !reflect.DeepEqual(normOverride(back), normOverride(o)) {
		t.Fatalf("the re-encoded sidecar parses different:\n%s\n%#v\n%#v", js, o, back)
	}
}

// normOverride makes absent and empty chunk lists alike: an entry written
// without "chunks" re-encodes with "chunks": [].
func normOverride(o *fakellm.Override) *fakellm.Override {
	n := &fakellm.Override{Path: o.Path, Sessions: map[string]fakellm.SessionOverride{}}
	norm := func(e fakellm.Entry) fakellm.Entry {
		if len(e.Chunks) == 0 {
			e.Chunks = nil
		}
		return e
	}
	for key, so := range o.Sessions {
		var m fakellm.SessionOverride
		if so.Replace != nil {
			m.Replace = []fakellm.Entry{}
			for _, e := range so.Replace {
				m.Replace = append(m.Replace, norm(e))
			}
		}
		if so.Patch != nil {
			m.Patch = map[int]fakellm.Entry{}
			for i, e := range so.Patch {
				m.Patch[i] = norm(e)
			}
		}
		n.Sessions[key] = m
	}
	return n
}

func mapValues(m map[int]fakellm.Entry) []fakellm.Entry {
	out := make([]fakellm.Entry, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	return out
}

// replayOverride applies the sidecar to the seed scenario and, when the
// driver builds, replays every entry of every session in lineage order.
func replayOverride(t *testing.T, o *fakellm.Override) {
	t.Helper()
	drv, err := fakellm.New(overrideLogs(t), fakellm.WithOverride(o))
	if err != nil {
		if !errors.Is(err, fakellm.ErrBadOverride) {
			t.Fatalf("applying a parsed sidecar failed without ErrBadOverride: %v", err)
		}
		return
	}
	// A cancelled context ends hang entries at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	live := map[string]string{} // recorded session id -> live id
	for _, s := range drv.Scripts() {
		h := &s.Header
		ref := llm.SessionRef{ID: "live-" + h.ID}
		if h.IsChild() {
			parent, bound := live[h.ParentSession]
			if !bound {
				continue // its parent made no call, so it cannot bind
			}
			ref.ParentID, ref.ParentCallID, ref.Mode, ref.Depth = parent, h.ParentCallID, h.Mode, h.DelegationDepth
		}
		for i, e := range s.Entries {
			turn, step := e.Turn, e.Step
			if turn == 0 && step == 0 {
				turn, step = 1, 1
			}
			seq, err := drv.Stream(ctx, &llm.Request{Session: ref, Turn: turn, Step: step, Attempt: 1})
			if err != nil {
				t.Fatalf("%s entry %d: %v", s.Name, i, err)
			}
			live[h.ID] = ref.ID
			checkStream(t, seq, fmt.Sprintf("%s entry %d (%s)", s.Name, i, e.Kind))
		}
	}
	if err := drv.Check(); err != nil && !errors.Is(err, fakellm.ErrNotConsumed) {
		t.Fatalf("every entry was replayed, yet Check reports a failed call: %v", err)
	}
}

// checkStream drains a replayed stream and asserts it ends with exactly one
// finish.
func checkStream(t *testing.T, seq func(func(llm.Chunk) bool), what string) {
	t.Helper()
	var got []llm.Chunk
	for c := range seq {
		got = append(got, c)
	}
	finishes := 0
	for _, c := range got {
		if c.IsFinish() {
			finishes++
		}
		// The runtime records every served chunk in a log line.
		if line := (&session.ChunkData{Turn: 1, Step: 1, Chunk: c}).AppendJSON(nil); bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("%s: a served chunk does not encode on one log line: %s", what, line)
		}
	}
	if len(got) == 0 || !got[len(got)-1].IsFinish() || finishes != 1 {
		t.Fatalf("%s: the stream of %d chunks has %d finishes, want exactly one at the end", what, len(got), finishes)
	}
}
