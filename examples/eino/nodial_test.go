package eino_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/examples/eino/desk"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/cloudwego/eino-ext/components/model/openai"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
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

		By("checking the trap: the desk on a model without agentsnap's client dials, and is counted")
		ctx := context.Background()
		model, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: "http://model.invalid/v1", APIKey: "unused", Model: "any", HTTPClient: &http.Client{}})
		Expect(err).NotTo(HaveOccurred())
		d, err := desk.New(ctx, desk.Config{Model: model})
		Expect(err).NotTo(HaveOccurred())
		_, err = d.Ask(ctx, "hello")
		Expect(err).To(MatchError(ContainSubstring("replay tried to open a connection")))
		Expect(dials.Load()).To(BeNumerically(">", 0))
		dials.Store(0)

		By("replaying every fixture")
		dirs := fixtures()
		Expect(dirs).NotTo(BeEmpty())
		for _, dir := range dirs {
			Expect(replay(dir, opts)).To(harness.MatchRecording())
		}
		Expect(dials.Load()).To(BeZero())
	})

	It("is tested without the agent knowing agentsnap: the desk package imports none of it", func() {
		out, err := exec.Command("go", "list", "-deps", "github.com/agentsnap/agentsnap/examples/eino/desk").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/cloudwego/eino/adk"), "the listing is real")
		for _, d := range deps {
			if strings.HasPrefix(d, "github.com/agentsnap/agentsnap") {
				Expect(d).To(Equal("github.com/agentsnap/agentsnap/examples/eino/desk"))
			}
		}
	})
})
