package langchaingo_test

import (
	"context"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tmc/langchaingo/chains"
)

var _ = Describe("the desk streaming its answers", func() {
	It("replays every fixture, recorded unstreamed, as recorded: streaming shapes the answer, not the request", func() {
		var chunks atomic.Int64
		streaming := wire.Runtime("langchaingo-opsdesk", deskRun(chains.WithStreamingFunc(func(context.Context, []byte) error {
			chunks.Add(1)
			return nil
		})), wire.InferLineage())
		for _, dir := range fixtures() {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: streaming})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording(), fx.Name)
		}
		Expect(chunks.Load()).To(BeNumerically(">", 0), "langchaingo read the answers as server-sent events")
	})
})
