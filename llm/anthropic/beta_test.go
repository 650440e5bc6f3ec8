package anthropic_test

import (
	"net/http"

	"github.com/agentsnap/agentsnap/llm/anthropic"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the agent's betas", func() {
	It("go out with each call decoded from this API, besides the driver's own, each value once, the driver's header untouched", func(ctx SpecContext) {
		p := newProvider(streaming(msgStart, msgStop))
		d := newDriver(p, func(c *anthropic.Config) {
			c.Header = http.Header{"Anthropic-Beta": {"context-1m-2025-08-07"}}
		})
		betas := userRequest("hi")
		betas.API = anthropic.API
		betas.Forward = &anthropic.Forward{Betas: []string{"interleaved-thinking-2025-05-14", "context-1m-2025-08-07"}}
		collect(ctx, d, betas)
		collect(ctx, d, userRequest("hi"))
		other := userRequest("hi")
		other.API, other.Forward = "openai-chat", betas.Forward // another API's call: its betas mean nothing here
		collect(ctx, d, other)
		reqs := p.Requests()
		Expect(reqs).To(HaveLen(3))
		Expect(reqs[0].Header.Values("Anthropic-Beta")).To(Equal([]string{"context-1m-2025-08-07", "interleaved-thinking-2025-05-14"}))
		Expect(reqs[1].Header.Values("Anthropic-Beta")).To(Equal([]string{"context-1m-2025-08-07"}), "the driver's, as configured")
		Expect(reqs[2].Header.Values("Anthropic-Beta")).To(Equal([]string{"context-1m-2025-08-07"}))
	})
})
