package sdkagent_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Serial: the spec swaps process-wide defaults.
var _ = Describe("replaying sdkagent", Serial, func() {
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

		By("checking the trap: the agent on a default client dials, and is counted")
		agent := &sdkagent.Agent{
			Client: openai.NewClient(option.WithBaseURL("http://model.invalid/v1"), option.WithAPIKey("unused"), option.WithMaxRetries(0)),
			Model:  "any", System: "any",
		}
		_, err := agent.NewSession().Send(context.Background(), "hello")
		Expect(err).To(MatchError(ContainSubstring("replay tried to open a connection")))
		Expect(dials.Load()).To(BeNumerically(">", 0))
		dials.Store(0)

		By("replaying every fixture")
		dirs := fixtures()
		Expect(dirs).NotTo(BeEmpty())
		for _, dir := range dirs {
			o := replay(dir)
			Expect(o).To(harness.MatchRecording())
		}
		Expect(dials.Load()).To(BeZero())
	})

	It("is tested without the agent knowing agentsnap: the agent package imports none of it", func() {
		out, err := exec.Command("go", "list", "-deps", "github.com/agentsnap/agentsnap/examples/sdkagent").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/openai/openai-go/v3"), "the listing is real")
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/agentsnap/agentsnap") {
				Expect(d).To(Equal("github.com/agentsnap/agentsnap/examples/sdkagent"))
			}
		}
	})
})
