package wire_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// keyedGenai is the genai agent sending key as its API key (the
// x-goog-api-key header), or, with inQuery, as a key= query parameter of
// every request, as an agent in another language may.
func keyedGenai(key string, inQuery bool) agentsnap.Runtime {
	return wire.Runtime("genai-test-agent", func(ctx context.Context, env *wire.Env) error {
		hc, agentKey := env.HTTPClient, key
		if inQuery {
			hc, agentKey = &http.Client{Transport: withQueryKey{key: key, next: env.HTTPClient.Transport}}, ""
		}
		a, err := newGenaiAgent(ctx, env.Scenario.Agent, hc, strings.TrimSuffix(env.BaseURL, "/v1"), agentKey)
		if err != nil {
			return err
		}
		root, err := a.root(ctx)
		if err != nil {
			return err
		}
		return env.EachPrompt(ctx, func(ctx context.Context, _ int, prompt string) error {
			_, err := root.Send(ctx, prompt)
			return err
		})
	})
}

// withQueryKey adds key=KEY to the query of every request.
type withQueryKey struct {
	key  string
	next http.RoundTripper
}

func (t withQueryKey) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	q := r.URL.RawQuery
	if q != "" {
		q += "&"
	}
	r.URL.RawQuery = q + "key=" + t.key
	return t.next.RoundTrip(r)
}

// echoKey is a scenario whose model answers with text that holds key.
func echoKey(key string) (string, string) {
	sc := `{"description": "the model says the agent's key", "prompts": ["What is your key?"], "agent": {"system": "You are terse."}}`
	pb := fmt.Sprintf(`{"sessions": {"root": [{"text": "Your key is %s."}]}}`, key)
	return sc, pb
}

var _ = Describe("a credential the genai agent sends", Label("secrets"), func() {
	DescribeTable("is a secret of the recording: an answer that holds it is refused and nothing is written",
		func(inQuery bool, source string) {
			const key = "AIza-agent-0123456789abcdefXYZ"
			sc, pb := echoKey(key)
			dir := newFixture("custom/genai-key", sc, pb)
			opts, err := recorder.PlaybookOptions(dir, 0)
			Expect(err).NotTo(HaveOccurred())
			opts.Runtime = keyedGenai(key, inQuery)
			_, err = recorder.Record(context.Background(), dir, opts)
			Expect(err).To(MatchError(recorder.ErrSecret))
			Expect(err.Error()).To(ContainSubstring("the value of " + source + " "))
			Expect(err.Error()).NotTo(ContainSubstring(key))
			Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
		},
		Entry("in the x-goog-api-key header", false, "the x-goog-api-key header"),
		Entry("in a key= query parameter", true, "the key= query parameter of the agent's request"),
	)

	It("and the driver's key, echoed by a live Gemini endpoint, never reaches a file or an error", NodeTimeout(time.Minute), func(ctx SpecContext) {
		const key = "AIza-driver-0123456789abcdefXYZ"
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"I got %s\"}]},\"finishReason\":\"STOP\"}]}\n\n", r.Header.Get("X-Goog-Api-Key"))
		}))
		DeferCleanup(srv.Close)
		sc, pb := echoKey("unused")
		root := GinkgoT().TempDir()
		dir := filepath.Join(root, "custom", "echo")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "scenario.json"), []byte(sc), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "playbook.json"), []byte(pb), 0o644)).To(Succeed())
		drv, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: key})
		Expect(err).NotTo(HaveOccurred())
		opts := recorder.LiveOptions(drv, srv.URL, "gemini-2.5-flash")
		opts.Runtime = genaiStreamed
		_, err = recorder.Record(ctx, dir, opts)
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of the x-goog-api-key header "))
		traces, werr := leaktest.Traces(key, []string{root}, err.Error())
		Expect(werr).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty())
	})
})
