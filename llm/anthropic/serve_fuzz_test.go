package anthropic

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/session"
)

// eventStrings are texts whose escaping differs: HTML characters (which
// encoding/json escapes by default), control characters (\b and \f
// differ between AppendString and encoding/json), quotes and backslashes,
// line and paragraph separators, multi-byte runes and bytes that are not
// UTF-8.
var eventStrings = []string{
	"", "hello", "<in order> & in full", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"\u2028\u2029", "café 🙂 日本", "bad \xff\xfe\xe2\x82", "\xed\xa0\x80", `{"key":"release"}`, "</script>",
}

// chunkReader draws a chunk sequence from fuzz bytes, reading 0 past
// their end.
type chunkReader struct{ in []byte }

func (r *chunkReader) byte() byte {
	if len(r.in) == 0 {
		return 0
	}
	c := r.in[0]
	r.in = r.in[1:]
	return c
}

// str is one of eventStrings, or up to 15 bytes of the input.
func (r *chunkReader) str() string {
	c := r.byte()
	if c < 0xc0 {
		return eventStrings[int(c)%len(eventStrings)]
	}
	n := min(int(c&0x0f), len(r.in))
	s := string(r.in[:n])
	r.in = r.in[n:]
	return s
}

// maybe is s half the time, else "".
func (r *chunkReader) maybe(s func() string) string {
	if r.byte()&1 == 0 {
		return ""
	}
	return s()
}

func (r *chunkReader) intPtr() *int {
	if r.byte()&1 == 0 {
		return nil
	}
	n := int(int8(r.byte())) * 37
	return &n
}

// blockType is a block type, now and then one no chunk should name.
func (r *chunkReader) blockType() string {
	return [...]string{session.BlockText, session.BlockReasoning, session.BlockToolCall, session.BlockText, "image"}[r.byte()%5]
}

// fuzzChunks is the chunk sequence of in: any order, any index of a few,
// strings that need escaping, meta of either kind or broken, usage with
// odd counts, every finish kind (or none).
func fuzzChunks(in []byte) []session.Chunk {
	r := &chunkReader{in: in}
	var out []session.Chunk
	for len(r.in) > 0 && len(out) < 64 {
		idx := int(r.byte() % 4)
		switch r.byte() % 8 {
		case 0:
			out = append(out, session.Chunk{Type: session.ChunkBlockStart, Index: idx, BlockType: r.blockType()})
		case 1:
			out = append(out, session.Chunk{Type: session.ChunkTextDelta, Index: idx, Text: r.str()})
		case 2:
			out = append(out, session.Chunk{Type: session.ChunkReasoningDelta, Index: idx, Text: r.str()})
		case 3:
			out = append(out, session.Chunk{Type: session.ChunkToolCallDelta, Index: idx, ID: r.maybe(r.str), Name: r.maybe(r.str), ArgumentsDelta: r.str()})
		case 4:
			out = append(out, session.Chunk{Type: session.ChunkBlockEnd, Index: idx, Block: r.block()})
		case 5:
			u := &session.Usage{InputTokens: int(r.byte()) * 11, OutputTokens: int(int8(r.byte())), CacheReadTokens: r.intPtr(), ReasoningTokens: r.intPtr()}
			if r.byte()&1 == 0 {
				u = nil
			}
			out = append(out, session.Chunk{Type: session.ChunkUsage, Usage: u})
		default:
			out = append(out, session.Chunk{Type: session.ChunkFinish, Reason: r.finish()})
		}
	}
	return out
}

// block is a block-end's block, now and then none.
func (r *chunkReader) block() *session.Block {
	c := r.byte()
	if c%7 == 0 {
		return nil
	}
	b := &session.Block{Type: r.blockType(), Text: r.str(), ID: r.maybe(r.str), Name: r.maybe(r.str), Arguments: r.str()}
	switch c % 5 {
	case 1:
		b.Meta = Meta{Signature: r.str()}.JSON()
	case 2:
		b.Meta = Meta{Data: r.str()}.JSON()
	case 3:
		b.Meta = Meta{Signature: r.str(), Data: r.str()}.JSON()
	case 4:
		b.Meta = []byte(`{"anthropic-messages":`)
	}
	return b
}

func (r *chunkReader) finish() *session.FinishReason {
	kinds := [...]string{session.FinishStop, session.FinishToolCalls, session.FinishMaxTokens, session.FinishError, session.FinishAborted, "other"}
	c := r.byte()
	if c%9 == 8 {
		return nil
	}
	f := &session.FinishReason{Kind: kinds[int(c)%len(kinds)]}
	if f.Kind == session.FinishError && r.byte()&1 == 1 {
		f.Failure = &session.Failure{Code: r.str(), Message: r.str()}
	}
	return f
}

var errWrite = errors.New("the connection broke")

// servedTo is what a ServeStream-like func wrote, flushed and returned.
type servedTo struct {
	out      bytes.Buffer
	writes   int
	flushes  int
	failAt   int // the write that fails; 0: none
	returned error
}

func (s *servedTo) Write(p []byte) (int, error) {
	if s.writes++; s.writes == s.failAt {
		return 0, errWrite
	}
	return s.out.Write(p)
}

// serveWith runs serve over chunks into a writer whose failAt-th write
// fails.
func serveWith(serve func(w io.Writer, flush func(), id, model string, chunks iter.Seq[session.Chunk]) error,
	id, model string, chunks []session.Chunk, failAt int) *servedTo {
	s := &servedTo{failAt: failAt}
	s.returned = serve(s, func() { s.flushes++ }, id, model, slices.Values(chunks))
	return s
}

// sameServe says how serving chunks with ServeStream differs from
// refServeStream, the old reflection path, or "".
func sameServe(id, model string, chunks []session.Chunk, failAt int) string {
	got := serveWith(ServeStream, id, model, chunks, failAt)
	want := serveWith(refServeStream, id, model, chunks, failAt)
	switch {
	case got.out.String() != want.out.String():
		return "wrote\n" + got.out.String() + "\nwant\n" + want.out.String()
	case got.returned != want.returned:
		return fmt.Sprintf("returned %v, want %v", got.returned, want.returned)
	case got.writes != want.writes || got.flushes != want.flushes:
		return fmt.Sprintf("%d writes and %d flushes, want %d and %d", got.writes, got.flushes, want.writes, want.flushes)
	}
	return ""
}

// FuzzServeStream holds ServeStream to refServeStream for any chunk
// sequence, id and model, and a write failing at any event: the same
// bytes, writes, flushes and error.
func FuzzServeStream(f *testing.F) {
	f.Add([]byte{}, "msg_1", "m", 0)
	f.Add([]byte{0, 0, 0, 1, 5, 0, 1, 6, 0, 4, 1, 0, 5, 7, 1, 2, 1, 3, 0, 7, 0}, "msg_<1>", "claude\u2028", 0)
	f.Add([]byte{2, 0, 2, 2, 3, 3, 1, 1, 0, 3, 2, 3, 1, 0, 0, 0, 4, 4, 2, 2, 3, 2, 0, 7, 3}, "id", "m", 3)
	f.Add([]byte{1, 0, 1, 1, 2, 1, 200, 1, 1, 4, 2, 3, 1, 4, 1, 7, 1, 3, 1, 1, 2, 3, 9}, "", "\b<&>", 2)
	f.Fuzz(func(t *testing.T, in []byte, id, model string, failAt int) {
		if diff := sameServe(id, model, fuzzChunks(in), failAt%32); diff != "" {
			t.Fatalf("chunks %+v: %s", fuzzChunks(in), diff)
		}
	})
}
