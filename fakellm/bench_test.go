package fakellm_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/agentsnap/agentsnap/fakellm"
	"github.com/agentsnap/agentsnap/session"
)

// benchSize is the least size of the generated log: the 50 MB.
const benchSize = 50 << 20

// benchWords are the deltas of generated answers, escapes and non-ASCII
// included so string decoding is not a trivial copy.
var benchWords = []string{"The", " answer", " is", " \"quoted\"", " café", "\n", " over", " lines", " of", " text", " — ", " 42", "."}

// writeBenchLog writes a fork child log of at least size bytes to path: a
// seed of a few inherited turns, then turns of steps that stream reasoning,
// text and a tool call, every tenth step after a failed attempt. It returns
// the number of calls and chunks its script has.
func writeBenchLog(path string, size int) (calls, chunks int, err error) {
	var body []byte
	var seq int64
	add := func(typ string, data []byte) {
		body = session.AppendEvent(body, &session.Event{Type: typ, Seq: seq, Time: 1_767_225_600_000 + seq, Data: data})
		seq++
	}
	chunk := func(turn, step, attempt int, c session.Chunk) {
		d := session.ChunkData{Turn: turn, Step: step, Attempt: attempt, Chunk: c}
		add(session.TypeAssistantChunk, d.AppendJSON(nil))
	}
	seedLength := -1
	for turn := 1; len(body) < size; turn++ {
		if turn == 4 {
			seedLength = int(seq) // the first three turns are the inherited prefix
		}
		add(session.TypeTurnStart, []byte(fmt.Sprintf(`{"turn":%d,"trigger":"user"}`, turn)))
		add(session.TypeUserMessage, []byte(`{"role":"user","content":[{"type":"text","text":"go on"}]}`))
		for step := 1; step <= 5; step++ {
			add(session.TypeStepStart, []byte(fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step)))
			attempt := 1
			if step%10 == 3 || (turn+step)%10 == 0 {
				chunk(turn, step, attempt, session.Chunk{Type: session.ChunkBlockStart, BlockType: session.BlockText})
				chunk(turn, step, attempt, session.ErrorFinish("RATE_LIMIT", "slow down"))
				attempt++
				if turn >= 4 {
					calls, chunks = calls+1, chunks+2
				}
			}
			n := 0
			emit := func(c session.Chunk) { chunk(turn, step, attempt, c); n++ }
			emit(session.Chunk{Type: session.ChunkBlockStart, Index: 0, BlockType: session.BlockReasoning})
			for i := range 40 {
				emit(session.Chunk{Type: session.ChunkReasoningDelta, Index: 0, Text: benchWords[i%len(benchWords)]})
			}
			emit(session.Chunk{Type: session.ChunkBlockEnd, Index: 0, Block: &session.Block{Type: session.BlockReasoning, Text: "thought"}})
			emit(session.Chunk{Type: session.ChunkBlockStart, Index: 1, BlockType: session.BlockText})
			for i := range 60 {
				emit(session.Chunk{Type: session.ChunkTextDelta, Index: 1, Text: benchWords[(i*7)%len(benchWords)]})
			}
			emit(session.Chunk{Type: session.ChunkBlockEnd, Index: 1, Block: &session.Block{Type: session.BlockText, Text: "answer"}})
			emit(session.Chunk{Type: session.ChunkBlockStart, Index: 2, BlockType: session.BlockToolCall})
			emit(session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ID: fmt.Sprintf("call_%d_%d", turn, step), Name: "read_file", ArgumentsDelta: `{"path":`})
			emit(session.Chunk{Type: session.ChunkToolCallDelta, Index: 2, ArgumentsDelta: `"main.go"}`})
			emit(session.Chunk{Type: session.ChunkUsage, Usage: &session.Usage{InputTokens: 1200, OutputTokens: 300}})
			emit(session.Finish(session.FinishToolCalls))
			if turn >= 4 {
				calls, chunks = calls+1, chunks+n
			}
			add(session.TypeAssistantMessage, []byte(fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"role":"assistant","content":[{"type":"text","text":"answer"}]}}`, turn, step)))
			add(session.TypeToolCall, []byte(fmt.Sprintf(`{"turn":%d,"step":%d,"callId":"call_%d_%d","name":"read_file","arguments":"{}"}`, turn, step, turn, step)))
			add(session.TypeToolResult, []byte(fmt.Sprintf(`{"turn":%d,"step":%d,"message":{"role":"tool","content":[{"type":"tool-result","toolCallId":"call_%d_%d","content":[{"type":"text","text":"package main"}],"isError":false}]}}`, turn, step, turn, step)))
			add(session.TypeStepEnd, []byte(fmt.Sprintf(`{"turn":%d,"step":%d}`, turn, step)))
		}
		add(session.TypeTurnEnd, []byte(fmt.Sprintf(`{"turn":%d,"reason":{"kind":"completed"}}`, turn)))
	}
	h := session.Header{ID: "bench-child", CreatedAt: 1, ParentSession: "bench-root", SeedLength: seedLength,
		Origin: session.OriginSubagent, DelegationDepth: 1, ParentCallID: "call_1", Mode: session.ModeFork}
	out := append(session.AppendHeader(nil, &h), body...)
	return calls, chunks, os.WriteFile(path, out, 0o644)
}

// plainEvent is what a plain encoding/json decode of an event line fills.
type plainEvent struct {
	Type string          `json:"type"`
	Seq  int64           `json:"seq"`
	Time int64           `json:"time"`
	Data json.RawMessage `json:"data"`
}

// plainDecode decodes every line of the log with encoding/json: the header
// into a map, each event into plainEvent. It is the baseline derivation is
// held to.
func plainDecode(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var header map[string]any
	n := 0
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) && len(line) == 0 {
			return n, nil
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		if header == nil {
			if err := json.Unmarshal(line, &header); err != nil {
				return n, err
			}
			continue
		}
		var e plainEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return n, err
		}
		n++
	}
}

// BenchmarkDerive derives the script of a generated log of 50 MB or more,
// and in the same run decodes the same bytes with encoding/json and derives
// them with Node's JSON.parse (testdata/derive-bench.mjs, when node is on
// the PATH). Every variant reports MB/s and cpu-ns/op, the CPU time of the
// process per derivation (steadier than wall time on a shared machine; the
// Go figure includes the garbage collector's work). The node variant's ns/op
// includes starting node; its inner-ns/op and cpu-ns/op do not.
//
//	go test -run '^$' -bench BenchmarkDerive -benchtime 5x -benchmem -v ./fakellm
func BenchmarkDerive(b *testing.B) {
	path := filepath.Join(b.TempDir(), "session.1.jsonl")
	calls, chunks, err := writeBenchLog(path, benchSize)
	if err != nil {
		b.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	size := info.Size()
	b.Logf("generated log: %.1f MiB, %d calls and %d chunks after the seed", float64(size)/(1<<20), calls, chunks)
	mbps := func(b *testing.B, ns float64) {
		b.ReportMetric(float64(size)/(1<<20)/(ns/1e9), "MB/s")
	}

	b.Run("fakellm.DeriveFile", func(b *testing.B) {
		cpu := cpuNanos()
		for b.Loop() {
			s, err := fakellm.DeriveFile(path, fakellm.DeriveOptions{})
			if err != nil {
				b.Fatal(err)
			}
			if n := countChunks(s); len(s.Entries) != calls || n != chunks {
				b.Fatalf("derived %d calls and %d chunks, the generator wrote %d and %d", len(s.Entries), n, calls, chunks)
			}
		}
		mbps(b, float64(b.Elapsed().Nanoseconds())/float64(b.N))
		b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
	})

	b.Run("encoding-json", func(b *testing.B) {
		cpu := cpuNanos()
		for b.Loop() {
			if _, err := plainDecode(path); err != nil {
				b.Fatal(err)
			}
		}
		mbps(b, float64(b.Elapsed().Nanoseconds())/float64(b.N))
		b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
	})

	b.Run("node-JSON.parse", func(b *testing.B) {
		node, err := exec.LookPath("node")
		if err != nil {
			b.Skip("node is not on the PATH")
		}
		out, err := exec.Command(node, "testdata/derive-bench.mjs", path, fmt.Sprint(b.N)).Output()
		if err != nil {
			b.Fatalf("node: %v", err)
		}
		var res struct {
			Iterations, Calls, Chunks int
			NS, CPUNS                 float64
		}
		if err := json.Unmarshal(bytes.TrimSpace(out), &res); err != nil {
			b.Fatalf("node printed %q: %v", out, err)
		}
		if res.Calls != calls || res.Chunks != chunks {
			b.Fatalf("node derived %d calls and %d chunks, the generator wrote %d and %d", res.Calls, res.Chunks, calls, chunks)
		}
		inner := res.NS / float64(res.Iterations)
		b.ReportMetric(inner, "inner-ns/op")
		b.ReportMetric(res.CPUNS/float64(res.Iterations), "cpu-ns/op")
		mbps(b, inner)
	})
}

func countChunks(s *fakellm.Script) int {
	n := 0
	for _, e := range s.Entries {
		n += len(e.Chunks)
	}
	return n
}
