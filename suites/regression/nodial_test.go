package regression_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/suites/suitekit"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("replay", Label("regression", "security"), func() {
	It("never dials: every scenario replays with a transport and resolver that refuse any connection", func() {
		var attempts atomic.Int32
		refuse := func(context.Context, string, string) (net.Conn, error) {
			attempts.Add(1)
			return nil, errors.New("replay tried to open a connection")
		}
		DeferCleanup(func(t http.RoundTripper, r *net.Resolver) {
			http.DefaultTransport, net.DefaultResolver = t, r
		}, http.DefaultTransport, net.DefaultResolver)
		http.DefaultTransport = &http.Transport{DialContext: refuse}
		net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: refuse}

		dirs, err := harness.Discover(suitekit.Root())
		Expect(err).NotTo(HaveOccurred())
		Expect(dirs).NotTo(BeEmpty())
		for _, dir := range dirs {
			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
		}
		Expect(attempts.Load()).To(BeZero())
	})

	// The harness links the network stack since it can also record from a
	// test (-record, live); the replay core it drives does not.
	It("cannot open a socket: the replay core does not link the network stack", func() {
		out, err := exec.Command("go", "list", "-deps",
			"github.com/agentsnap/agentsnap/fakellm",
			"github.com/agentsnap/agentsnap/agent",
			"github.com/agentsnap/agentsnap/journal",
			"github.com/agentsnap/agentsnap/persistence/memory").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		deps := strings.Fields(string(out))
		Expect(deps).To(ContainElement("github.com/agentsnap/agentsnap/fakellm"), "the listing is real")
		for _, pkg := range []string{"net", "net/http", "crypto/tls", "github.com/agentsnap/agentsnap/llm/openai"} {
			Expect(deps).NotTo(ContainElement(pkg))
		}
	})
})
