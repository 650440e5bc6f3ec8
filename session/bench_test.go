package session_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// benchSize is the size of the generated benchmark log: big enough that the
// reader's per-file costs vanish and that a non-streaming reader would show.
const benchSize = 56 << 20

// benchLog generates the benchmark log into b.TempDir once per benchmark
// (b.Loop runs the setup a single time) and returns its path, its size and
// its logical event count.
func benchLog(b *testing.B) (path string, size, events int64) {
	b.Helper()
	path = filepath.Join(b.TempDir(), "bench.jsonl")
	events, size, err := generateLogFile(path, benchSize, true)
	if err != nil {
		b.Fatal(err)
	}
	return path, size, events
}

func reportEvents(b *testing.B, events int64) {
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(events), "events/op")
}

// BenchmarkReadLog reads a generated log of more than 50 MB with the
// streaming Reader, counting events without keeping them.
func BenchmarkReadLog(b *testing.B) {
	path, size, want := benchLog(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var got int64
	for b.Loop() {
		got = readCount(b, path, false)
	}
	if got != want {
		b.Fatalf("read %d events, generated %d", got, want)
	}
	reportEvents(b, got)
}

// BenchmarkReadLogDecodeChunks is BenchmarkReadLog plus decoding the chunk
// of every assistant/chunk event, the work of script derivation, and the
// like-for-like match of BenchmarkReadLogEncodingJSON.
func BenchmarkReadLogDecodeChunks(b *testing.B) {
	path, size, want := benchLog(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var got int64
	for b.Loop() {
		got = readCount(b, path, true)
	}
	if got != want {
		b.Fatalf("read %d events, generated %d", got, want)
	}
	reportEvents(b, got)
}

func readCount(b *testing.B, path string, chunks bool) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := session.NewReader(f, path)
	var n int64
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n
		}
		if err != nil {
			b.Fatal(err)
		}
		if chunks && e.Type == session.TypeAssistantChunk {
			if _, err := session.DecodeChunkData(e.Data); err != nil {
				b.Fatal(err)
			}
		}
		n++
	}
}

// BenchmarkReadLogEncodingJSON is the baseline: the same file decoded line
// by line with plain encoding/json into an envelope, plus the chunk of
// assistant/chunk events (and the data of packed rows, which it counts as
// their logical events). It validates less than the Reader: no seq, header
// or seedLength checks.
func BenchmarkReadLogEncodingJSON(b *testing.B) {
	path, size, want := benchLog(b)
	b.SetBytes(size)
	b.ReportAllocs()
	var got int64
	for b.Loop() {
		got = readEncodingJSON(b, path)
	}
	if got != want {
		b.Fatalf("read %d events, generated %d", got, want)
	}
	reportEvents(b, got)
}

type envelope struct {
	Type string          `json:"type"`
	Seq  int64           `json:"seq"`
	Time int64           `json:"time"`
	Data json.RawMessage `json:"data"`
}

type plainChunkData struct {
	Turn    int `json:"turn"`
	Step    int `json:"step"`
	Attempt int `json:"attempt"`
	Chunk   struct {
		Type           string          `json:"type"`
		Index          int             `json:"index"`
		BlockType      string          `json:"blockType"`
		Text           string          `json:"text"`
		ID             string          `json:"id"`
		Name           string          `json:"name"`
		ArgumentsDelta string          `json:"argumentsDelta"`
		Block          json.RawMessage `json:"block"`
		Usage          json.RawMessage `json:"usage"`
		Reason         json.RawMessage `json:"reason"`
	} `json:"chunk"`
}

type plainRow struct {
	Texts []string `json:"texts"`
	Args  []string `json:"args"`
	DT    []int64  `json:"dt"`
}

func readEncodingJSON(b *testing.B, path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	var n int64
	first := true
	for sc.Scan() {
		var env envelope
		if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
			b.Fatal(err)
		}
		if first {
			first = false
			continue
		}
		switch env.Type {
		case session.TypeAssistantChunk:
			var d plainChunkData
			if err := json.Unmarshal(env.Data, &d); err != nil {
				b.Fatal(err)
			}
			n++
		case session.TypeTextChunks, session.TypeReasoningChunks, session.TypeToolCallChunks:
			var row plainRow
			if err := json.Unmarshal(env.Data, &row); err != nil {
				b.Fatal(err)
			}
			n += int64(len(row.Texts) + len(row.Args))
		default:
			n++
		}
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return n
}
