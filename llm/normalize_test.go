package llm_test

import (
	"context"
	"errors"
	"iter"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// source is a stream that counts the chunks it managed to hand out, so a
// spec can see whether its consumer stopped pulling.
type source struct {
	chunks  []llm.Chunk
	yielded int
	stopped bool // the consumer returned false
}

func (s *source) seq() iter.Seq[llm.Chunk] {
	return func(yield func(llm.Chunk) bool) {
		for _, c := range s.chunks {
			s.yielded++
			if !yield(c) {
				s.stopped = true
				return
			}
		}
	}
}

func delta(i int, text string) llm.Chunk {
	return llm.Chunk{Type: session.ChunkTextDelta, Index: i, Text: text}
}

func collectAll(s iter.Seq[llm.Chunk]) []llm.Chunk {
	var out []llm.Chunk
	for c := range s {
		out = append(out, c)
	}
	return out
}

var _ = Describe("Normalize", func() {
	It("passes a well-formed stream through unchanged", func(ctx SpecContext) {
		src := &source{chunks: []llm.Chunk{delta(0, "hi"), session.Finish(session.FinishStop)}}
		Expect(collectAll(llm.Normalize(ctx, src.seq()))).To(Equal(src.chunks))
	})

	It("ends a stream that stops without a finish with an error finish coded NO_FINISH", func(ctx SpecContext) {
		src := &source{chunks: []llm.Chunk{delta(0, "half an ans")}}
		got := collectAll(llm.Normalize(ctx, src.seq()))
		Expect(got).To(HaveLen(2))
		Expect(got[0]).To(Equal(delta(0, "half an ans")))
		Expect(got[1].Type).To(Equal(session.ChunkFinish))
		Expect(got[1].Reason.Kind).To(Equal(session.FinishError))
		Expect(got[1].Reason.Failure.Code).To(Equal(llm.CodeNoFinish))
		Expect(got[1].Reason.Failure.Message).To(ContainSubstring("without a finish chunk"))
	})

	It("gives an empty stream a finish too", func(ctx SpecContext) {
		got := collectAll(llm.Normalize(ctx, (&source{}).seq()))
		Expect(got).To(HaveLen(1))
		Expect(got[0].Reason.Failure.Code).To(Equal(llm.CodeNoFinish))
	})

	It("ends a stream cut off by a cancelled context with an aborted finish", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		src := &source{chunks: []llm.Chunk{delta(0, "interrup")}}
		got := collectAll(llm.Normalize(ctx, src.seq()))
		Expect(got).To(Equal([]llm.Chunk{delta(0, "interrup"), session.Finish(session.FinishAborted)}))
	})

	It("keeps the stream's own finish when the context is cancelled after it", func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		src := &source{chunks: []llm.Chunk{session.ErrorFinish("SERVER", "boom")}}
		Expect(collectAll(llm.Normalize(ctx, src.seq()))).To(Equal([]llm.Chunk{session.ErrorFinish("SERVER", "boom")}))
	})

	It("drops everything after the first finish and stops pulling the source", func(ctx SpecContext) {
		src := &source{chunks: []llm.Chunk{
			delta(0, "a"),
			session.Finish(session.FinishStop),
			delta(0, "late"),
			session.Finish(session.FinishToolCalls),
		}}
		got := collectAll(llm.Normalize(ctx, src.seq()))
		Expect(got).To(Equal([]llm.Chunk{delta(0, "a"), session.Finish(session.FinishStop)}))
		Expect(src.yielded).To(Equal(2))
		Expect(src.stopped).To(BeTrue())
	})

	DescribeTable("respects a consumer that stops early: no further yield, not even a finish",
		func(chunks []llm.Chunk, stopAfter int) {
			src := &source{chunks: chunks}
			calls := 0
			llm.Normalize(context.Background(), src.seq())(func(llm.Chunk) bool {
				calls++
				return calls < stopAfter
			})
			Expect(calls).To(Equal(stopAfter))
			Expect(src.yielded).To(Equal(stopAfter))
			Expect(src.stopped).To(BeTrue())
		},
		Entry("stop on the first of many", []llm.Chunk{delta(0, "a"), delta(0, "b"), session.Finish(session.FinishStop)}, 1),
		Entry("stop on the last chunk of a stream without finish", []llm.Chunk{delta(0, "a"), delta(0, "b")}, 2),
		Entry("stop on the finish itself", []llm.Chunk{delta(0, "a"), session.Finish(session.FinishStop)}, 2),
	)
})

var _ = Describe("DriverFunc", func() {
	It("passes the context and request to the function and returns its stream and error", func() {
		type key struct{}
		ctx := context.WithValue(context.Background(), key{}, "marker")
		req := &llm.Request{Turn: 3, Session: llm.SessionRef{ID: "s1"}}
		boom := errors.New("boom")
		var seenCtx context.Context
		var seenReq *llm.Request
		var d llm.Driver = llm.DriverFunc(func(ctx context.Context, r *llm.Request) (iter.Seq[llm.Chunk], error) {
			seenCtx, seenReq = ctx, r
			return (&source{chunks: []llm.Chunk{session.Finish(session.FinishStop)}}).seq(), boom
		})
		s, err := d.Stream(ctx, req)
		Expect(err).To(MatchError(boom))
		Expect(seenCtx.Value(key{})).To(Equal("marker"))
		Expect(seenReq).To(BeIdenticalTo(req))
		Expect(collectAll(s)).To(Equal([]llm.Chunk{session.Finish(session.FinishStop)}))
	})
})

var _ = Describe("SessionRef", func() {
	DescribeTable("IsRoot is true only without a parent",
		func(ref llm.SessionRef, root bool) { Expect(ref.IsRoot()).To(Equal(root)) },
		Entry("root", llm.SessionRef{ID: "r"}, true),
		Entry("spawn child", llm.SessionRef{ID: "c", ParentID: "r", ParentCallID: "call_1", Mode: session.ModeSpawn, Depth: 1}, false),
	)
})
