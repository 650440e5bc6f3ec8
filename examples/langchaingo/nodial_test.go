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

// trapResolver says whether the no-socket spec swaps net.DefaultResolver
// too. googleai_test.go turns it off: see there.
var trapResolver = true

// Serial: the spec swaps process-wide defaults.
var _ = Describe("replaying the desk", Serial, func() {
	It("opens no socket: every fixture replays with a transport and resolver that refuse and count any dial", func() {
		var dials atomic.Int32
		refuse := func(context.Context, string, string) (net.Conn, error) {
			dials.Add(1)
			return nil, errors.New("replay tried to open a connection")
		}
		DeferCleanup(func(t http.RoundTripper) { http.DefaultTransport = t }, http.DefaultTransport)
		http.DefaultTransport = &http.Transport{DialContext: refuse}
		if trapResolver {
			DeferCleanup(func(r *net.Resolver) { net.DefaultResolver = r }, net.DefaultResolver)
			net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: refuse}
		}

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

		By("replaying the tool-loop desk's, on llms/anthropic and llms/googleai (whose client also builds a gRPC one it never uses)")
		for _, p := range providers {
			Expect(replayWith(p.runtime, loopMixed(p))).To(harness.MatchRecording())
		}
		Expect(dials.Load()).To(BeZero())
	})

	It("is tested without the desk knowing agentsnap: the agent packages import none of it", func() {
		for pkg, framework := range map[string]string{"opsdesk": "github.com/tmc/langchaingo/agents", "opsloop": "github.com/tmc/langchaingo/llms"} {
			path := "github.com/agentsnap/agentsnap/examples/langchaingo/" + pkg
			out, err := exec.Command("go", "list", "-deps", path).CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			deps := strings.Fields(string(out))
			Expect(deps).To(ContainElement(framework), "the listing is real")
			for _, d := range deps {
				if strings.HasPrefix(d, "github.com/agentsnap/agentsnap") {
					Expect(d).To(Equal(path))
				}
			}
		}
	})
})
