package gemini_test

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// frameStrings are texts whose escaping differs: HTML characters (which
// encoding/json escapes by default), control characters, quotes and
// backslashes, line and paragraph separators, multi-byte runes and bytes
// that are not UTF-8.
var frameStrings = []string{
	"", "hello", "<in order> & in full", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"\u2028\u2029", "café 🙂 日本", "bad \xff\xfe\xe2\x82", "\xed\xa0\x80", `{"key":"release"}`, "</script>",
}

// acceptedArgs are arguments texts a tool call may have, spelled every
// way Marshal rewrites a json.RawMessage: space to compact, HTML
// characters and separators to escape (inside strings, keys too), bytes
// that are not UTF-8 (kept), escapes (kept), members in no order and
// repeated (kept), space that strings.TrimSpace trims and JSON does not.
var acceptedArgs = []string{
	"", "  ", "{}", " { } ", "\t{\n\"a\" : 1 ,\r\n \"b\":[ 1 , 2 ] }\n",
	`{"html":"<b>&amp;</b>","<k>":">"}`, "{\"sep\":\"a\u2028b\u2029c\"}", "{\"bad\":\"\xff\xe2\x80\xe2\x80\xa8\"}",
	`{"esc":"\u003c\"\\\/\n\u2028\ud83d\ude00"}`, `{"b":1,"a":2,"b":3}`, `{"\u0041":true,"x":null,"f":false}`,
	`{"n":-0.5e+10,"m":1E2,"z":0,"big":123456789012345678901234567890}`, `{"deep":[{"x":[[],{}]},{ "y" : { } }]}`,
	"\u00a0\v{\"a\":\"é\"}\u0085\f", "{\"s\":\"日本 🙂\"}", deepArgs(100),
}

// deepestArgs is nested as deep as encoding/json allows.
var deepestArgs = deepArgs(9999)

// refusedArgs are arguments texts that are not one JSON object.
var refusedArgs = []string{
	"[1]", "null", `"x"`, "1", "true", "{", `{"a":1}x`, `{"a":01}`, "{} {}", "{\"a\":\"\x01\"}", `{'a':1}`,
	`{"a":1,}`, `{"a"}`, `{"a":tru}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":1}\x00", deepArgs(10000),
}

// deepArgs is an object nested depth+1 deep.
func deepArgs(depth int) string {
	return strings.Repeat(`{"a":`, depth) + "{}" + strings.Repeat("}", depth)
}

// frameString draws a text from frameStrings, or random bytes.
func frameString(r *rand.Rand) string {
	if r.IntN(3) > 0 {
		return frameStrings[r.IntN(len(frameStrings))]
	}
	b := make([]byte, r.IntN(10))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

// framePart draws a part of the kinds a stream writes.
func framePart(r *rand.Rand) gemini.Part {
	var p gemini.Part
	if r.IntN(2) == 0 {
		s := frameString(r)
		p.Text = &s
	}
	p.Thought = r.IntN(2) == 0
	if r.IntN(2) == 0 {
		p.ThoughtSignature = frameString(r)
	}
	if r.IntN(2) == 0 {
		args, ok := gemini.CallArgs(acceptedArgs[r.IntN(len(acceptedArgs))])
		Expect(ok).To(BeTrue())
		p.FunctionCall = &gemini.FunctionCall{Name: frameString(r), Args: json.RawMessage(args)}
		if r.IntN(2) == 0 {
			p.FunctionCall.ID = frameString(r)
		}
	}
	return p
}

// frameCount draws a token count: 0 (omitted) a third of the time,
// negative now and then.
func frameCount(r *rand.Rand) int {
	if r.IntN(3) == 0 {
		return 0
	}
	return r.IntN(100000) - 10
}

func frameUsage(r *rand.Rand) *gemini.UsageMetadata {
	if r.IntN(2) == 0 {
		return nil
	}
	return &gemini.UsageMetadata{PromptTokenCount: frameCount(r), CandidatesTokenCount: frameCount(r), ThoughtsTokenCount: frameCount(r),
		CachedContentTokenCount: frameCount(r), ToolUsePromptTokenCount: frameCount(r), TotalTokenCount: frameCount(r)}
}

// marshal is v as the reflection writer wrote it.
func marshal(v any) string {
	GinkgoHelper()
	b, err := json.Marshal(v)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// failingResponse is a ResponseWriter whose writes fail.
type failingResponse struct {
	*httptest.ResponseRecorder
	writes int
}

var errWrite = errors.New("connection reset")

func (f *failingResponse) Write([]byte) (int, error) {
	f.writes++
	return 0, errWrite
}

var _ = Describe("the events of a streamed answer", func() {
	r := rand.New(rand.NewPCG(7, 22))

	It("are the bytes encoding/json's Marshal writes for a Response of one part, HTML escaping on", func() {
		for range 3000 {
			a := gemini.Answer{Model: frameString(r), ResponseID: frameString(r)}
			p, u := framePart(r), frameUsage(r)
			finish := []string{"", "STOP", "MAX_TOKENS", frameString(r)}[r.IntN(4)]
			want := marshal(gemini.Response{Candidates: []gemini.Candidate{{Content: &gemini.Content{Role: "model", Parts: []gemini.Part{p}}, FinishReason: finish}},
				UsageMetadata: u, ModelVersion: a.Model, ResponseID: a.ResponseID})
			Expect(string(gemini.AppendEvent([]byte("data: "), a, p, finish, u))).To(Equal("data: "+want), "%#v", p)
		}
	})

	It("write the error event as encoding/json does", func() {
		for range 500 {
			status, message := []int{200, 400, 401, 404, 429, 499, 500, 503, 600, -1}[r.IntN(10)], frameString(r)
			want := marshal(map[string]gemini.APIError{"error": {Code: status, Message: message, Status: gemini.StatusName(status)}})
			Expect(string(gemini.AppendErrorEvent(nil, status, message))).To(Equal(want))
		}
	})

	It("accept the arguments WriteMessage accepts and write them as Marshal writes a json.RawMessage: compacted, HTML characters escaped", func() {
		for _, in := range append(acceptedArgs, deepestArgs) {
			raw, ok := gemini.ArgsObject(in)
			Expect(ok).To(BeTrue(), "%q", in)
			args, ok := gemini.CallArgs(in)
			Expect(ok).To(BeTrue(), "%q", in)
			p := gemini.Part{FunctionCall: &gemini.FunctionCall{ID: "c", Name: "f", Args: json.RawMessage(args)}}
			want := marshal(gemini.Response{Candidates: []gemini.Candidate{{Content: &gemini.Content{Role: "model", Parts: []gemini.Part{{FunctionCall: &gemini.FunctionCall{ID: "c", Name: "f", Args: raw}}}}}}})
			Expect(string(gemini.AppendEvent(nil, gemini.Answer{}, p, "", nil))).To(Equal(want), "%q", in)
		}
	})

	It("refuse the arguments WriteMessage refuses", func() {
		for _, in := range refusedArgs {
			_, ok := gemini.ArgsObject(in)
			Expect(ok).To(BeFalse(), "%q", in)
			_, ok = gemini.CallArgs(in)
			Expect(ok).To(BeFalse(), "%q", in)
		}
	})

	It("escape what encoding/json escapes: <, > and &, control characters, separators, bytes that are not UTF-8", func() {
		text := "<b> & \x01\u2028\xff"
		args, _ := gemini.CallArgs("{ \"q\": \"a < b & \u2029\xff\" }")
		got := string(gemini.AppendEvent(nil, gemini.Answer{}, gemini.Part{Text: &text, FunctionCall: &gemini.FunctionCall{Name: "f", Args: json.RawMessage(args)}}, "", nil))
		Expect(got).To(ContainSubstring(`"text":"\u003cb\u003e \u0026 \u0001\u2028\ufffd"`))
		Expect(got).To(ContainSubstring("\"args\":{\"q\":\"a \\u003c b \\u0026 \\u2029\xff\"}"))
	})

	It("stop at a write that fails, returning its error, and call yield no more", func() {
		w := &failingResponse{ResponseRecorder: httptest.NewRecorder()}
		calls := 0
		err := gemini.WriteStream(w, gemini.Answer{}, func(yield func(session.Chunk) bool) {
			for _, c := range []session.Chunk{{Type: session.ChunkTextDelta, Text: "a"}, {Type: session.ChunkTextDelta, Text: "b"}, {Type: session.ChunkTextDelta, Text: "c"}} {
				calls++
				if !yield(c) {
					return
				}
			}
		})
		Expect(err).To(MatchError(errWrite))
		Expect(calls).To(Equal(2), "the second part sends the first")
		Expect(w.writes).To(Equal(1))
	})

	It("write nothing for a yield called after WriteStream returned", func() {
		var kept func(session.Chunk) bool
		rec := httptest.NewRecorder()
		Expect(gemini.WriteStream(rec, gemini.Answer{}, func(yield func(session.Chunk) bool) {
			kept = yield
			yield(session.Chunk{Type: session.ChunkTextDelta, Text: "a"})
		})).To(Succeed())
		Expect(rec.Body.String()).To(BeEmpty(), "the part is held back for a finish that never came")
		Expect(kept(session.Chunk{Type: session.ChunkTextDelta, Text: "ghost"})).To(BeFalse())
		Expect(kept(session.Finish(session.FinishStop))).To(BeFalse())
		Expect(rec.Body.String()).To(BeEmpty())
		Expect(rec.Code).To(Equal(http.StatusOK))
	})
})
