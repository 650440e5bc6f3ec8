package responses

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"reflect"
	"slices"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// fuzzStrings are texts whose escaping differs (see frameStrings).
var fuzzStrings = []string{
	"", "hi", "<b> & </b>", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t", "\u2028\u2029", "café 🙂", "bad \xff\xe2\x82", "\xed\xa0\x80",
}

// fuzzChunks reads a chunk sequence from b: each byte pair picks a chunk
// type, a block index and strings (from fuzzStrings, or the bytes that
// follow), so every order of deltas, ends and finishes comes up.
func fuzzChunks(b []byte) []session.Chunk {
	var out []session.Chunk
	str := func() string {
		if len(b) == 0 {
			return ""
		}
		n := int(b[0])
		b = b[1:]
		if n < 0xe0 {
			return fuzzStrings[n%len(fuzzStrings)]
		}
		n = min(n-0xe0, len(b))
		s := string(b[:n])
		b = b[n:]
		return s
	}
	for len(b) >= 2 {
		op, idx := b[0], int(b[1]%4)
		b = b[2:]
		out = append(out, fuzzChunk(op, idx, str))
	}
	return out
}

var blockTypes = []string{session.BlockText, session.BlockReasoning, session.BlockToolCall, "image"}

func fuzzChunk(op byte, idx int, str func() string) session.Chunk {
	switch op % 9 {
	case 0:
		return session.Chunk{Type: session.ChunkBlockStart, Index: idx, BlockType: blockTypes[op/9%4]}
	case 1, 2:
		return session.Chunk{Type: session.ChunkTextDelta, Index: idx, Text: str()}
	case 3:
		return session.Chunk{Type: session.ChunkReasoningDelta, Index: idx, Text: str()}
	case 4:
		return session.Chunk{Type: session.ChunkToolCallDelta, Index: idx, ID: str(), Name: str(), ArgumentsDelta: str()}
	case 5:
		blk := &session.Block{Type: blockTypes[op/9%4], Text: str(), ID: str(), Name: str(), Arguments: str()}
		if op&0x80 != 0 {
			m := Meta{ID: str(), Phase: str(), EncryptedContent: str()}
			blk.Meta = m.Raw()
		}
		if op&0x40 != 0 {
			return session.Chunk{Type: session.ChunkBlockEnd, Index: idx}
		}
		return session.Chunk{Type: session.ChunkBlockEnd, Index: idx, Block: blk}
	case 6:
		u := &session.Usage{InputTokens: int(op), OutputTokens: idx * 1000}
		if op&0x80 != 0 {
			u.CacheReadTokens, u.ReasoningTokens = ptr(idx), ptr(-int(op))
		}
		return session.Chunk{Type: session.ChunkUsage, Usage: u}
	case 7:
		kinds := []string{session.FinishStop, session.FinishToolCalls, session.FinishMaxTokens, session.FinishError, session.FinishAborted}
		if op/9%6 == 5 {
			return session.Chunk{Type: session.ChunkFinish}
		}
		if k := kinds[op/9%6]; k != session.FinishError {
			return session.Finish(k)
		}
		return session.ErrorFinish(str(), str())
	}
	return session.Chunk{Type: "unknown", Index: idx, Text: str()}
}

// fuzzAnswer reads an Answer from b's strings.
func fuzzAnswer(key, model, instr, prev, tool, params string) Answer {
	a := Answer{Key: key, Model: model, Instructions: instr, Previous: prev}
	if tool != "" {
		a.Tools = []llm.ToolSpec{{Name: tool, Description: instr}, {Name: model, Parameters: json.RawMessage(params)}}
	}
	return a
}

// failAfter is a ResponseWriter whose Write fails from the nth on.
type failAfter struct {
	*httptest.ResponseRecorder
	n int
}

var errWrite = errors.New("connection reset")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n--; f.n < 0 {
		return 0, errWrite
	}
	return f.ResponseRecorder.Write(p)
}

// FuzzWriteStream checks that WriteStream writes the bytes, returns the
// Result and the error the writer it replaced (refWriteStream, encoding/json
// for every event) does, for any chunks, answer and failing write.
func FuzzWriteStream(f *testing.F) {
	// Byte pairs as fuzzChunk reads them, then the strings each needs.
	seeds := [][]byte{
		{0, 0, 1, 0, 1, 1, 0, 2, 5, 0, 1, 0, 0, 0, 6, 1, 7, 0},                                        // text, usage, stop
		{18, 1, 4, 1, 1, 1, 3, 4, 1, 0, 0, 4, 23, 1, 0, 1, 1, 3, 16, 0},                               // a function call
		{9, 2, 3, 2, 6, 3, 2, 2, 158, 2, 6, 0, 0, 0, 1, 2, 3, 0, 3, 1, 3, 0xe3, '<', '&', '>', 25, 0}, // reasoning with meta, text, max tokens
		{0, 0, 1, 0, 2, 34, 0, 2, 4},                                                                  // a failed call
	}
	for _, b := range seeds {
		f.Add(b, "root:1:1:1", "gpt", "<be> brief", "", "lookup", `{"type": "object"}`, 100)
	}
	f.Add([]byte{0, 0, 1, 0, 0xe3, 'a', '<', 0xff, 5, 0, 0x10, 7, 0}, "k", "m", "", "resp_1", "", "", 3)
	f.Add([]byte{9, 2, 4, 2, 1, 2, 3, 14, 2, 3, 5, 3, 16, 0}, "k", "m", "i", "p", "t", `{"a": [1, 2]}`, 100)
	f.Add([]byte{3, 0, 3, 0, 0x85, 0, 1, 2, 3, 4, 5, 7, 0}, "k", "m", "", "", "t", `{bad`, 100)
	f.Fuzz(func(t *testing.T, b []byte, key, model, instr, prev, tool, params string, writes int) {
		chunks := fuzzChunks(b)
		a := fuzzAnswer(key, model, instr, prev, tool, params)
		want := &failAfter{httptest.NewRecorder(), writes}
		wantRes, wantErr := refWriteStream(want, a, slices.Values(chunks))
		got := &failAfter{httptest.NewRecorder(), writes}
		gotRes, gotErr := WriteStream(got, a, slices.Values(chunks))
		if g, w := got.Body.String(), want.Body.String(); g != w {
			t.Fatalf("chunks %+v:\nwrote %q\nwant  %q", chunks, g, w)
		}
		if !reflect.DeepEqual(gotRes, wantRes) || errString(gotErr) != errString(wantErr) {
			t.Fatalf("chunks %+v: got %+v, %v\nwant %+v, %v", chunks, gotRes, gotErr, wantRes, wantErr)
		}
		if !reflect.DeepEqual(got.Header(), want.Header()) || got.Code != want.Code {
			t.Fatalf("headers %v %d, want %v %d", got.Header(), got.Code, want.Header(), want.Code)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
