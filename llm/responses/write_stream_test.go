package responses

import (
	"encoding/json"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// sameAsReference writes chunks with WriteStream and refWriteStream to
// writers failing from write n on, and expects the same bytes, Result and
// error.
func sameAsReference(a Answer, chunks []session.Chunk, n int) {
	GinkgoHelper()
	want := &failAfter{httptest.NewRecorder(), n}
	wantRes, wantErr := refWriteStream(want, a, slices.Values(chunks))
	got := &failAfter{httptest.NewRecorder(), n}
	gotRes, gotErr := WriteStream(got, a, slices.Values(chunks))
	Expect(got.Body.String()).To(Equal(want.Body.String()), "%+v", chunks)
	Expect(gotRes).To(Equal(wantRes))
	Expect(errString(gotErr)).To(Equal(errString(wantErr)))
}

var _ = Describe("WriteStream", func() {
	a := Answer{Key: "root:1:1:1", Model: "gpt-test", Instructions: "Be <brief>.", Tools: []llm.ToolSpec{
		{Name: "lookup", Description: "Look up & say.", Parameters: json.RawMessage(`{ "type": "object" }`)}}}
	r := rand.New(rand.NewPCG(5, 9))

	It("writes what encoding/json wrote for every answer a recording streams, whatever its strings", func() {
		for _, text := range frameStrings {
			msg := session.Message{Role: session.RoleAssistant, Content: []session.Part{
				{Type: session.PartReasoning, Text: text + " " + text, Meta: Meta{ID: text, EncryptedContent: text}.Raw()},
				{Type: session.PartText, Text: text, Meta: Meta{Phase: text}.Raw()},
				{Type: session.PartToolCall, ID: text + "1", Name: text, Arguments: text},
			}}
			for _, kind := range []string{session.FinishToolCalls, session.FinishMaxTokens} {
				sameAsReference(a, llm.StreamMessage(msg, &session.Usage{InputTokens: 9, OutputTokens: 3, CacheReadTokens: ptr(4)}, kind), 1000)
			}
		}
	})

	It("writes what encoding/json wrote for random chunks, and stops at the same failing write", func() {
		for range 3000 {
			b := make([]byte, r.IntN(40))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			sameAsReference(a, fuzzChunks(b), r.IntN(12))
		}
	})

	It("returns the error of a failed write, writes nothing after it, and keeps nothing of the answer", func() {
		w := &failAfter{httptest.NewRecorder(), 4}
		res, err := WriteStream(w, a, slices.Values(benchAnswers()["text"]))
		Expect(err).To(MatchError(errWrite))
		Expect(res.Kept).To(BeFalse())
		Expect(strings.Count(w.Body.String(), "\n\n")).To(Equal(4))
		Expect(w.Body.String()).To(HaveSuffix(`"sequence_number":3,"output_index":0,"item_id":"` + itemID("msg", a.Key, 0) +
			`","content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}` + "\n\n"))
	})

	It("fails on tools whose parameters are not JSON as encoding/json does, writing nothing", func() {
		bad := a
		bad.Tools = []llm.ToolSpec{{Name: "f", Parameters: json.RawMessage(`{"a":`)}}
		w := httptest.NewRecorder()
		_, err := WriteStream(w, bad, slices.Values(benchAnswers()["text"]))
		Expect(err).To(MatchError(ContainSubstring("json: error calling MarshalJSON for type json.RawMessage")))
		Expect(w.Body.Len()).To(BeZero())
		sameAsReference(bad, benchAnswers()["text"], 100)
	})

	It("allocates nothing per event: ten times the deltas, a few more allocations (the text growing)", func() {
		allocs := func(words int) float64 {
			text := strings.TrimSpace(strings.Repeat("word ", words))
			chunks := llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, session.FinishStop)
			w := &discard{h: http.Header{}}
			return testing.AllocsPerRun(20, func() { _, _ = WriteStream(w, a, slices.Values(chunks)) })
		}
		few, many := allocs(46), allocs(460)
		bound := 6.0
		if raceEnabled {
			bound = 60 // the pool drops some buffers under the race detector; 414 more deltas would still show
		}
		Expect(many-few).To(BeNumerically("<=", bound), "46 deltas: %v allocations, 460: %v", few, many)
	})

	It("derives the ids it always derived, for any key and item", func() {
		for range 2000 {
			b := make([]byte, r.IntN(300))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			key, n := string(b), r.IntN(1<<20)-10
			Expect(ResponseID(key)).To(Equal(refResponseID(key)))
			for _, prefix := range []string{"msg", "fc", "rs"} {
				Expect(itemID(prefix, key, n)).To(Equal(refItemID(prefix, key, n)), "%q %d", key, n)
			}
		}
	})

	It("is not reached by a driver that calls yield after its stream returned, nor after it panicked", func() {
		var kept func(session.Chunk) bool
		first := httptest.NewRecorder()
		text := benchAnswers()["text"]
		_, err := WriteStream(first, a, func(yield func(session.Chunk) bool) {
			kept = yield
			for _, c := range text[:len(text)-1] { // no finish: it ends by returning
				if !yield(c) {
					return
				}
			}
		})
		Expect(err).NotTo(HaveOccurred())
		written := first.Body.String()
		ghost := session.Chunk{Type: session.ChunkTextDelta, Index: 0, Text: "ghost"}
		second := httptest.NewRecorder()
		res, err := WriteStream(second, a, func(yield func(session.Chunk) bool) {
			Expect(kept(ghost)).To(BeFalse())
			for _, c := range benchAnswers()["toolcall"] {
				if !yield(c) {
					return
				}
			}
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Kept).To(BeTrue())
		Expect(first.Body.String()).To(Equal(written))
		Expect(second.Body.String()).NotTo(ContainSubstring("ghost"))

		Expect(func() {
			_, _ = WriteStream(httptest.NewRecorder(), a, func(yield func(session.Chunk) bool) {
				kept = yield
				panic("a driver's bug")
			})
		}).To(PanicWith("a driver's bug"))
		Expect(kept(ghost)).To(BeFalse())
	})
})
