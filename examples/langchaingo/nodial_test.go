package langchaingo_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/examples/langchaingo/opsdesk"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tmc/langchaingo/llms/openai"
)

// Serial: the spec swaps process-wide defaults.
var _ = Describe("replaying the desk", Serial, func() {
	It("opens no socket: every fixture replays with a transport and resolver that refuse and count any dial", func() {
		var dials atomic.Int32
		refuse := func(context.Context, string, string) (net.Conn, error) {
			dials.Add(1)
			return nil, errors.New("replay tried to open a connection")
		}
		DeferCleanup(func(t http.RoundTripper, r *net.Resolver) {
			http.DefaultTransport, net.DefaultResolver = t, r
		}, http.DefaultTransport, net.DefaultResolver)
		http.DefaultTransport = &http.Transport{DialContext: refuse}
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: refuse}

		By("checking the trap: the desk on a default client dials, and is counted")
		llm, err := openai.New(openai.WithBaseURL("http://model.invalid/v1"), openai.WithToken("unused"), openai.WithHTTPClient(http.DefaultClient))
		Expect(err).NotTo(HaveOccurred())
		desk, err := opsdesk.New(opsdesk.Config{LLM: llm, System: "any"})
		Expect(err).NotTo(HaveOccurred())
		_, err = desk.Ask(context.Background(), "hello")
		Expect(err).To(HaveOccurred(), "langchaingo reports a network error (and hides its cause)")
		Expect(dials.Load()).To(BeNumerically(">", 0), "the trap counted the dial")
		dials.Store(0)

		By("replaying every fixture")
		dirs := fixtures()
		Expect(dirs).NotTo(BeEmpty())
		for _, dir := range dirs {
			Expect(replay(dir)).To(harness.MatchRecording())
		}
		Expect(dials.Load()).To(BeZero())
	})

	It("is tested without the desk knowing agentsnap: the agent package imports none of it", func() {
		out, err := exec.Command("go", "list", "-deps", "github.com/agentsnap/agentsnap/examples/langchaingo/opsdesk").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/tmc/langchaingo/agents"), "the listing is real")
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/agentsnap/agentsnap") {
				Expect(d).To(Equal("github.com/agentsnap/agentsnap/examples/langchaingo/opsdesk"))
			}
		}
	})
})
