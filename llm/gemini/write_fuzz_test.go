package gemini

import (
	"bytes"
	"errors"
	"iter"
	"math/rand/v2"
	"net/http"
	"reflect"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// fuzzTexts are texts whose escaping differs, and arguments texts of
// every shape (see frames_test.go), for the fuzzer to start from.
var fuzzTexts = []string{
	"", "hello", "<in order> & in full", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\u2028\u2029", "café 🙂", "bad \xff\xe2\x82",
	"{}", " { } ", "\t{\n\"a\" : 1 ,\r\n \"b\":[ 1 , 2 ] }\n", `{"html":"<b>&amp;</b>","<k>":">"}`, "{\"sep\":\"a\u2028b\"}",
	"{\"bad\":\"\xff\"}", `{"b":1,"a":2,"b":3}`, "\u00a0{\"a\":1}\u0085", "[1]", "null", `{"a":01}`, "{", `{"a":1}x`,
}

// chunkReader draws the chunks of a stream from fuzz input; past its end
// every draw is zero.
type chunkReader struct{ in []byte }

func (r *chunkReader) byte() byte {
	if len(r.in) == 0 {
		return 0
	}
	b := r.in[0]
	r.in = r.in[1:]
	return b
}

// text is one of fuzzTexts, or up to 31 next bytes of the input.
func (r *chunkReader) text() string {
	n := int(r.byte())
	if n < 224 {
		return fuzzTexts[n%len(fuzzTexts)]
	}
	n = min(n-224, len(r.in))
	s := string(r.in[:n])
	r.in = r.in[n:]
	return s
}

func (r *chunkReader) count() *int {
	n := int(r.byte()) - 8
	if n < 0 {
		return nil
	}
	return &n
}

func (r *chunkReader) meta() []byte {
	switch r.byte() % 4 {
	case 0:
		return nil
	case 1:
		return Meta(r.text())
	case 2:
		return []byte(`{"gemini":{"thoughtSignature":` + r.text() + `}}`)
	}
	return []byte(r.text())
}

var fuzzKinds = []string{session.FinishStop, session.FinishToolCalls, session.FinishMaxTokens, session.FinishError, session.FinishAborted, "weird"}

func (r *chunkReader) chunk() session.Chunk {
	op, index := r.byte(), int(r.byte()%3)
	switch op % 10 {
	case 0, 1:
		return session.Chunk{Type: session.ChunkTextDelta, Index: index, Text: r.text()}
	case 2:
		return session.Chunk{Type: session.ChunkReasoningDelta, Index: index, Text: r.text()}
	case 3:
		types := []string{session.BlockText, session.BlockReasoning, session.BlockToolCall}
		return session.Chunk{Type: session.ChunkBlockStart, Index: index, BlockType: types[r.byte()%3]}
	case 4, 5:
		b := &session.Block{Type: []string{session.BlockText, session.BlockReasoning}[op%2], Text: r.text(), Meta: r.meta()}
		return session.Chunk{Type: session.ChunkBlockEnd, Index: index, Block: b}
	case 6:
		b := &session.Block{Type: session.BlockToolCall, ID: r.text(), Name: r.text(), Arguments: r.text(), Meta: r.meta()}
		return session.Chunk{Type: session.ChunkBlockEnd, Index: index, Block: b}
	case 7:
		u := session.Usage{InputTokens: int(r.byte()) - 8, OutputTokens: int(r.byte()) - 8, ReasoningTokens: r.count(), CacheReadTokens: r.count()}
		return session.Chunk{Type: session.ChunkUsage, Usage: &u}
	case 8:
		k := r.byte()
		if k == 0 {
			return session.Chunk{Type: session.ChunkFinish}
		}
		reason := &session.FinishReason{Kind: fuzzKinds[int(k)%len(fuzzKinds)]}
		if r.byte()%2 == 1 {
			reason.Failure = &session.Failure{Code: []string{"AUTH", "RATE_LIMIT", "SERVER", ""}[r.byte()%4], Message: r.text(), Status: 380 + int(r.byte())}
		}
		return session.Chunk{Type: session.ChunkFinish, Reason: reason}
	}
	return session.Chunk{Type: []string{session.ChunkToolCallDelta, "other"}[op%2], Index: index, Text: r.text(), ArgumentsDelta: r.text()}
}

// fuzzResponse records what a stream writes; its write number failAt
// (from 1) fails.
type fuzzResponse struct {
	h       http.Header
	status  int
	body    bytes.Buffer
	writes  int
	failAt  int
	flushes int
}

var errFuzzWrite = errors.New("connection reset")

func (f *fuzzResponse) Header() http.Header { return f.h }
func (f *fuzzResponse) WriteHeader(s int)   { f.status = s }
func (f *fuzzResponse) Write(b []byte) (int, error) {
	if f.writes++; f.writes == f.failAt {
		return 0, errFuzzWrite
	}
	return f.body.Write(b)
}

// flushingResponse is a fuzzResponse that flushes.
type flushingResponse struct{ *fuzzResponse }

func (f flushingResponse) Flush() { f.flushes++ }

// run writes chunks with write, and returns what it wrote, its error's
// text and how many chunks it took.
func run(write func(http.ResponseWriter, Answer, iter.Seq[session.Chunk]) error, a Answer, chunks []session.Chunk, failAt int, flusher bool) (*fuzzResponse, string, int) {
	rec := &fuzzResponse{h: http.Header{}, failAt: failAt}
	var w http.ResponseWriter = rec
	if flusher {
		w = flushingResponse{rec}
	}
	taken := 0
	err := write(w, a, func(yield func(session.Chunk) bool) {
		for _, c := range chunks {
			taken++
			if !yield(c) {
				return
			}
		}
	})
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	return rec, msg, taken
}

// FuzzWriteStream holds WriteStream to the reflection writer it replaced:
// the same bytes, headers, flushes and error, taking the same chunks, for
// any chunks and any write that fails.
func FuzzWriteStream(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 1, 0, 1, 2, 0, 5, 4, 0, 5, 1, 6, 1, 7, 8, 9, 0, 6, 2, 4, 3, 2, 0, 7, 1, 30, 20, 10, 9, 8, 0, 1})
	f.Add([]byte{0, 0, 0, 0, 2, 1, 3, 6, 1, 7, 8, 17, 0, 8, 0, 4, 1})
	f.Add([]byte{1, 0, 0, 0, 0, 1, 8, 0, 3, 0}) // a text, then an error finish whose first write fails
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 { // random streams, run as seeds by go test
		in := make([]byte, 16+r.IntN(120))
		for i := range in {
			in[i] = byte(r.IntN(256))
		}
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		cr := &chunkReader{in: in}
		opts := cr.byte()
		failAt, flusher := int(opts%8), opts&8 != 0
		a := Answer{Model: cr.text(), ResponseID: cr.text()}
		var chunks []session.Chunk
		for len(cr.in) > 0 {
			chunks = append(chunks, cr.chunk())
		}
		want, wantErr, wantTaken := run(refWriteStream, a, chunks, failAt, flusher)
		got, gotErr, gotTaken := run(WriteStream, a, chunks, failAt, flusher)
		if !bytes.Equal(got.body.Bytes(), want.body.Bytes()) {
			t.Fatalf("chunks %+v:\nwrote %q\nwant  %q", chunks, got.body.Bytes(), want.body.Bytes())
		}
		if gotErr != wantErr || gotTaken != wantTaken || got.writes != want.writes || got.flushes != want.flushes {
			t.Fatalf("chunks %+v: error %q, %d chunks taken, %d writes, %d flushes; want %q, %d, %d, %d",
				chunks, gotErr, gotTaken, got.writes, got.flushes, wantErr, wantTaken, want.writes, want.flushes)
		}
		if got.status != want.status || !reflect.DeepEqual(got.h, want.h) {
			t.Fatalf("status %d, header %v; want %d, %v", got.status, got.h, want.status, want.h)
		}
	})
}
