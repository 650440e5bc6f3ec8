package fakellm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// Fuzz targets of derivation (here) and the override sidecar
// (fuzz_override_test.go). Their seeds (in the code, and every crasher
// under testdata/fuzz) run with every go test; to fuzz:
//
//	go test -run '^$' -fuzz '^FuzzDerive$' -fuzztime 120s -fuzzminimizetime 10s ./fakellm
//	go test -run '^$' -fuzz '^FuzzOverride$' -fuzztime 120s -fuzzminimizetime 10s ./fakellm

// fuzzLogName names the fuzzed log in errors.
const fuzzLogName = "fuzz.jsonl"

// lineLog writes a seed log line by line: valid JSONL in the session
// format, with packed rows when asked for.
type lineLog struct {
	h    session.Header
	body []byte
	seq  int64
}

func newLineLog(h session.Header) *lineLog { return &lineLog{h: h} }

func (l *lineLog) event(typ, data string) *lineLog {
	l.body = session.AppendEvent(l.body, &session.Event{Type: typ, Seq: l.seq, Time: 100 + l.seq, Data: []byte(data)})
	l.seq++
	return l
}

func (l *lineLog) chunk(turn, step, attempt int, c session.Chunk) *lineLog {
	d := session.ChunkData{Turn: turn, Step: step, Attempt: attempt, Chunk: c}
	return l.event(session.TypeAssistantChunk, string(d.AppendJSON(nil)))
}

// call appends the chunks of one model call that answers text and ends with
// end (a finish, or nothing for a cut-off call).
func (l *lineLog) call(turn, step, attempt int, text string, end ...session.Chunk) *lineLog {
	for _, c := range llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, "") {
		if c.IsFinish() {
			break
		}
		l.chunk(turn, step, attempt, c)
	}
	for _, c := range end {
		l.chunk(turn, step, attempt, c)
	}
	return l
}

// packed appends a text-chunks row standing for one delta per text.
func (l *lineLog) packed(turn, step, attempt int, texts ...string) *lineLog {
	dt := make([]int64, max(0, len(texts)-1))
	for i := range dt {
		dt[i] = 1
	}
	data, _ := json.Marshal(map[string]any{"turn": turn, "step": step, "attempt": attempt, "index": 0, "dt": dt, "texts": texts})
	l.body = fmt.Appendf(l.body, `{"type":"text-chunks","seq0":%d,"time0":%d,"data":%s}`+"\n", l.seq, 100+l.seq, data)
	l.seq += int64(len(texts))
	return l
}

func (l *lineLog) turnStart(turn int) *lineLog {
	return l.event(session.TypeTurnStart, fmt.Sprintf(`{"turn":%d,"trigger":"user"}`, turn))
}

func (l *lineLog) turnEnd(turn int) *lineLog {
	return l.event(session.TypeTurnEnd, fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn))
}

// seedAt stamps seedLength: the events written so far are the inherited
// prefix.
func (l *lineLog) seedAt() *lineLog { l.h.SeedLength = int(l.seq); return l }

func (l *lineLog) bytes() []byte { return append(session.AppendHeader(nil, &l.h), l.body...) }

var (
	stop      = session.Finish(session.FinishStop)
	rateLimit = session.ErrorFinish("RATE_LIMIT", "slow down")
)

// rootSeed is a root that answers, then delegates to call_fork_1 and
// reports.
func rootSeed() *lineLog {
	l := newLineLog(session.Header{ID: "root", CreatedAt: 1})
	l.turnStart(1).call(1, 1, 1, "OK", stop).turnEnd(1)
	l.turnStart(2)
	for _, c := range llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartToolCall, ID: "call_fork_1", Name: "subagent_fork", Arguments: `{"prompt":"the codeword?"}`},
	}}, &session.Usage{InputTokens: 10, OutputTokens: 3}, "") {
		l.chunk(2, 1, 1, c)
	}
	l.event(session.TypeToolResult, `{"turn":2,"step":1,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":"call_fork_1","content":[{"type":"text","text":"MARMALADE"}],"isError":false}]}}`)
	return l.call(2, 2, 1, "MARMALADE", stop).turnEnd(2)
}

// forkSeed is the fork child of rootSeed: turn 1 inherited, then its own
// turn, after a failed attempt, answered partly in a packed row.
func forkSeed() *lineLog {
	l := newLineLog(session.Header{ID: "child", CreatedAt: 2, ParentSession: "root", ParentCallID: "call_fork_1",
		Mode: session.ModeFork, Origin: session.OriginSubagent, DelegationDepth: 1})
	l.turnStart(1).call(1, 1, 1, "OK", stop).turnEnd(1).seedAt()
	l.turnStart(2).call(2, 1, 1, "MARM", rateLimit)
	l.chunk(2, 1, 2, session.Chunk{Type: session.ChunkBlockStart, BlockType: session.BlockText})
	l.packed(2, 1, 2, "MARM", "ALADE")
	return l.chunk(2, 1, 2, stop).turnEnd(2)
}

// deriveSeeds are the logs FuzzDerive starts from: valid ones of every
// shape derivation handles, and near misses.
func deriveSeeds() [][]byte {
	dsh := newLineLog(session.Header{ID: "dsh", CreatedAt: 1})
	dsh.turnStart(1).call(1, 1, 0, "try", rateLimit).call(1, 1, 0, "again", stop).event("custom/event", `{"x":[1,2]}`).turnEnd(1)
	cut := newLineLog(session.Header{ID: "cut", CreatedAt: 1})
	cut.turnStart(1).call(1, 1, 1, "cut off").call(1, 2, 1, "next", stop)
	twice := newLineLog(session.Header{ID: "twice", CreatedAt: 1})
	twice.call(1, 1, 1, "a", stop).chunk(1, 1, 1, stop)
	// Chunks this package keeps verbatim: an unknown type, an unknown
	// member with spaces in its value, a text block with a tool call's id.
	odd := newLineLog(session.Header{ID: "odd", CreatedAt: 1})
	odd.turnStart(1).chunk(1, 1, 1, session.Chunk{Type: "future-chunk", Extra: map[string]json.RawMessage{"x": []byte(`[1]`)}})
	odd.event(session.TypeAssistantChunk, `{"turn":1,"step":1,"attempt":1,"chunk":{"type":"text-delta","index":0,"text":"a","meta":{ "k" : [1, 2] }}}`)
	odd.event(session.TypeAssistantChunk, `{"turn":1,"step":1,"attempt":1,"chunk":{"type":"block-end","index":0,"block":{"type":"text","text":"a","id":"x"}}}`)
	odd.chunk(1, 1, 1, stop).turnEnd(1)
	root, fork := rootSeed().bytes(), forkSeed().bytes()
	pastEnd := forkSeed()
	pastEnd.h.SeedLength = 600
	return [][]byte{
		root, fork, dsh.bytes(), cut.bytes(), twice.bytes(), odd.bytes(),
		append(bytes.Clone(fork), `{"type":"assistant/ch`...), // torn last line
		pastEnd.bytes(),
		[]byte(`{"type":"session","version":0,"id":"p","createdAt":1}` + "\n" +
			`{"type":"text-chunks","seq0":0,"time0":1,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","\u00e9","b"]}}` + "\n" +
			`{"type":"assistant/chunk","seq":3,"time":5,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"stop"}}}}` + "\n"),
		[]byte(`{"type":"session","version":0,"id":"x","createdAt":1}` + "\n" +
			`{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"error","failure":{"message":"m","status":500}}}}}` + "\n"),
		[]byte(`{"type":"session","version":0,"id":"x","createdAt":1}`),
		[]byte(`{"type":"session","version":0,"id":"x","createdAt":1}` + "\n" + `{"type":"assistant/chunk","seq":0,"time":1,"data":{"turn":1}}` + "\n"),
		nil,
	}
}

// FuzzDerive feeds arbitrary bytes to derivation under every option set.
// Derivation must never panic; streaming (Derive) and in-memory
// (DeriveLog) derivation must agree; and a derived script must be one a
// replay can serve and a sidecar can hold: every entry valid, its JSON
// ("agentsnap derive") parsing back to the same entries.
func FuzzDerive(f *testing.F) {
	for _, s := range deriveSeeds() {
		for mode := range byte(8) {
			f.Add(s, mode)
		}
	}
	f.Fuzz(func(t *testing.T, log []byte, mode byte) {
		opts := fakellm.DeriveOptions{Attempts: fakellm.AttemptsEvery, DropIncomplete: mode&2 != 0, IgnoreSeed: mode&4 != 0}
		if mode&1 != 0 {
			opts.Attempts = fakellm.AttemptsActedOn
		}
		s, err := fakellm.Derive(bytes.NewReader(log), fuzzLogName, opts)
		if err != nil {
			checkDeriveError(t, err)
		}
		sameAsDeriveLog(t, log, opts, s, err)
		if err != nil {
			return
		}
		checkScript(t, s, opts)
	})
}

// checkDeriveError asserts what every derivation error must be: located
// (the file, or the package and the file) and not empty.
func checkDeriveError(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	var pe *session.ParseError
	switch {
	case errors.As(err, &pe):
		if !strings.HasPrefix(msg, fuzzLogName+":") {
			t.Fatalf("a read error does not start with the file: %v", err)
		}
	case !strings.HasPrefix(msg, "fakellm: derive "+fuzzLogName+":"):
		t.Fatalf("a derivation error does not name the package and the file: %v", err)
	}
}

// sameAsDeriveLog derives the log read into memory and asserts the same
// outcome as the streaming derivation.
func sameAsDeriveLog(t *testing.T, log []byte, opts fakellm.DeriveOptions, s *fakellm.Script, err error) {
	t.Helper()
	l, rerr := session.Read(bytes.NewReader(log), fuzzLogName)
	if rerr != nil {
		if err == nil {
			t.Fatalf("Derive accepted a log session.Read refuses: %v", rerr)
		}
		return
	}
	s2, err2 := fakellm.DeriveLog(l, opts)
	if (err == nil) != (err2 == nil) {
		t.Fatalf("Derive and DeriveLog disagree:\nDerive:    %v\nDeriveLog: %v", err, err2)
	}
	if err == nil && (!reflect.DeepEqual(s.Entries, s2.Entries) || !reflect.DeepEqual(s.Dropped, s2.Dropped) || !reflect.DeepEqual(s.Header, s2.Header)) {
		t.Fatalf("Derive and DeriveLog derive different scripts:\n%s\n%s", fakellm.MarshalScript(s.Entries), fakellm.MarshalScript(s2.Entries))
	}
}

// checkScript asserts the invariants of a derived script and its JSON round
// trip.
func checkScript(t *testing.T, s *fakellm.Script, opts fakellm.DeriveOptions) {
	t.Helper()
	if len(s.Dropped) > 0 && !opts.DropIncomplete {
		t.Fatalf("calls were dropped without DropIncomplete: %+v", s.Dropped)
	}
	lenient := false
	for i := range s.Entries {
		e := &s.Entries[i]
		// A call cut short by a user's cancel (its turn ended aborted)
		// derives as a hang: the recorded prefix, no finish.
		if e.Kind != fakellm.KindChunks && e.Kind != fakellm.KindHang {
			t.Fatalf("entry %d: derived kind %q, want chunks or hang", i, e.Kind)
		}
		if opts.Attempts == fakellm.AttemptsActedOn && i > 0 && e.Turn == s.Entries[i-1].Turn && e.Step == s.Entries[i-1].Step {
			t.Fatalf("acted-on script keeps two attempts of turn %d step %d", e.Turn, e.Step)
		}
		if err := e.Validate(); err != nil {
			// Derivation passes chunks of types it does not know through
			// (the runtime ignores them), while a sidecar refuses them as
			// typos; such an entry must still end with its one finish.
			if !hasUnknownChunk(e) || finishes(e.Chunks) != 1 || !e.Chunks[len(e.Chunks)-1].IsFinish() {
				t.Fatalf("entry %d does not validate: %v\n%s", i, err, e.AppendJSON(nil))
			}
			lenient = true
		}
	}
	js := fakellm.MarshalScript(s.Entries)
	back, err := parseScript(js, lenient)
	if err != nil {
		t.Fatalf("the derived script's JSON does not parse back: %v\n%s", err, js)
	}
	if again := fakellm.MarshalScript(back); !bytes.Equal(again, js) {
		t.Fatalf("the derived script's JSON is not a fixed point:\n%s\n%s", js, again)
	}
	if len(s.Entries) == 0 && len(back) == 0 {
		return
	}
	if want := asEncoded(s.Entries); !reflect.DeepEqual(back, want) {
		t.Fatalf("the derived script parses back different:\n%s", firstDifference(want, back))
	}
}

// asEncoded returns a copy of entries as the derive output can carry them:
// chunk members this package does not know compacted (the output is
// indented, and a sidecar's entries are compacted when parsed), and
// block-end blocks with only the members session.Block's encoding writes
// for their type (a recorded text block with an id loses it in the derive
// output, though the replay serves it). Nothing else may change.
func asEncoded(entries []fakellm.Entry) []fakellm.Entry {
	out := slices.Clone(entries)
	for i := range out {
		out[i].Chunks = slices.Clone(out[i].Chunks)
		for j := range out[i].Chunks {
			c := &out[i].Chunks[j]
			if c.Extra != nil {
				extra := make(map[string]json.RawMessage, len(c.Extra))
				for k, v := range c.Extra {
					var b bytes.Buffer
					_ = json.Compact(&b, v) // valid: it was read from a log line
					extra[k] = b.Bytes()
				}
				c.Extra = extra
			}
			if c.Block == nil {
				continue
			}
			b := *c.Block
			if b.Type == session.BlockToolCall {
				b.Text = ""
			} else {
				b.ID, b.Name, b.Arguments = "", "", ""
			}
			c.Block = &b
		}
	}
	return out
}

// firstDifference shows the first chunk (or entry) two scripts differ in,
// pointers followed.
func firstDifference(want, got []fakellm.Entry) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d entries, parsed back %d", len(want), len(got))
	}
	for i := range want {
		w, g := want[i], got[i]
		if len(w.Chunks) != len(g.Chunks) {
			return fmt.Sprintf("entry %d: %d chunks, parsed back %d", i, len(w.Chunks), len(g.Chunks))
		}
		for j := range w.Chunks {
			if !reflect.DeepEqual(w.Chunks[j], g.Chunks[j]) {
				return fmt.Sprintf("entry %d chunk %d:\nderived     %s\nparsed back %s", i, j, dumpChunk(&w.Chunks[j]), dumpChunk(&g.Chunks[j]))
			}
		}
		w.Chunks, g.Chunks = nil, nil
		if !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("entry %d:\nderived     %+v\nparsed back %+v", i, w, g)
		}
	}
	return "no difference found"
}

func dumpChunk(c *session.Chunk) string {
	s := fmt.Sprintf("%+v", *c)
	if c.Block != nil {
		s += fmt.Sprintf(" block=%+v", *c.Block)
	}
	if c.Usage != nil {
		s += fmt.Sprintf(" usage=%+v", *c.Usage)
	}
	if c.Reason != nil {
		s += fmt.Sprintf(" reason=%+v", *c.Reason)
		if c.Reason.Failure != nil {
			s += fmt.Sprintf(" failure=%+v", *c.Reason.Failure)
		}
	}
	return s
}

// knownChunkTypes are the chunk types a sidecar entry may hold.
var knownChunkTypes = []string{session.ChunkBlockStart, session.ChunkTextDelta, session.ChunkReasoningDelta,
	session.ChunkToolCallDelta, session.ChunkBlockEnd, session.ChunkUsage, session.ChunkFinish}

func hasUnknownChunk(e *fakellm.Entry) bool {
	for _, c := range e.Chunks {
		if !slices.Contains(knownChunkTypes, c.Type) {
			return true
		}
	}
	return false
}

func finishes(cs []session.Chunk) int {
	n := 0
	for i := range cs {
		if cs[i].IsFinish() {
			n++
		}
	}
	return n
}

// parseScript parses the JSON of a script the way a sidecar's "replace"
// does, or, when lenient, the same way without Entry's validation (for
// scripts with chunk types a sidecar refuses).
func parseScript(js []byte, lenient bool) ([]fakellm.Entry, error) {
	var out []fakellm.Entry
	if !lenient {
		err := json.Unmarshal(js, &out)
		return out, err
	}
	var raw []struct {
		Kind                fakellm.Kind
		Turn, Step, Attempt int
		Chunks              []session.Chunk
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, js); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(compact.Bytes(), &raw); err != nil {
		return nil, err
	}
	for _, r := range raw {
		out = append(out, fakellm.Entry{Kind: r.Kind, Turn: r.Turn, Step: r.Step, Attempt: r.Attempt, Chunks: r.Chunks})
	}
	return out, nil
}
