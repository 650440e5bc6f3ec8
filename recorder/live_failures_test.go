package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// liveKey is the key of the live recordings below; no message or file may
// show it.
const liveKey = "sk-live-failure-0123456789abcdef"

// endpoint is a live endpoint as a test sets it up: its base URL and the
// client that reaches it (nil: http.DefaultClient).
type endpoint struct {
	baseURL string
	client  *http.Client
}

// statusServer answers every request with status and body, where KEY in
// body becomes the bearer token the request carried (providers echo bad
// keys). It counts the requests.
func statusServer(status int, body string, requests *int) endpoint {
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		*requests++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprint(w, strings.ReplaceAll(body, "KEY", strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")))
	}))
	DeferCleanup(srv.Close)
	return endpoint{baseURL: srv.URL + "/v1"}
}

// liveDriver is an OpenAI-compatible driver for e that retries a 5xx once
// and does not wait between tries.
func liveDriver(e endpoint) *openai.Driver {
	d, err := openai.New(openai.Config{
		BaseURL: e.baseURL, APIKey: liveKey, Model: "m", HTTPClient: e.client,
		MaxRetries: 1,
		Sleep:      func(context.Context, time.Duration) error { return nil },
	})
	Expect(err).NotTo(HaveOccurred())
	return d
}

// recordLive records dir from e the way the CLI does: LiveOptions, the key
// as a secret.
func recordLive(dir string, e endpoint, mutate ...func(*recorder.Options)) (*recorder.Result, error) {
	opts := recorder.LiveOptions(liveDriver(e), openai.RedactURL(e.baseURL), "m")
	opts.Runtime = agent.Reference
	opts.By = "agentsnap test"
	opts.Secrets = map[string]string{"AGENTSNAP_API_KEY": liveKey}
	for _, m := range mutate {
		m(&opts)
	}
	return recorder.Record(context.Background(), dir, opts)
}

var _ = Describe("a live recording whose model calls fail outside the model", func() {
	var dir string
	var before map[string]string
	BeforeEach(func() { dir, before = recorded("fork/codeword") })

	DescribeTable("fails, names the endpoint, the call and the code, and leaves the fixture byte-identical",
		func(code, says string, setup func() endpoint) {
			e := setup()
			_, err := recordLive(dir, e)
			Expect(err).To(MatchError(recorder.ErrRecording))
			Expect(err).To(MatchError(recorder.ErrLiveFailure))
			msg := err.Error()
			Expect(msg).To(ContainSubstring("failed at " + openai.RedactURL(e.baseURL)))
			Expect(msg).To(ContainSubstring("session root turn 1 step 1: " + code + ": "))
			Expect(msg).To(ContainSubstring(says))
			Expect(msg).To(ContainSubstring("nothing was saved, the fixture is unchanged"))
			Expect(msg).To(ContainSubstring("--keep-live-failures"))
			Expect(msg).NotTo(ContainSubstring(liveKey))
			Expect(tree(dir)).To(Equal(before))
		},
		Entry("connection refused", openai.CodeTransport, "refused the connection", func() endpoint {
			srv := httptest.NewServer(http.NotFoundHandler())
			srv.Close()
			return endpoint{baseURL: srv.URL + "/v1"}
		}),
		Entry("a host that does not resolve", openai.CodeTransport, "cannot resolve the host of the base URL (x.agentsnap.invalid)", func() endpoint {
			// The resolver's answer, without touching the network.
			dial := func(_ context.Context, _, addr string) (net.Conn, error) {
				host, _, _ := net.SplitHostPort(addr)
				return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
			}
			return endpoint{baseURL: "http://x.agentsnap.invalid/v1", client: &http.Client{Transport: &http.Transport{DialContext: dial}}}
		}),
		Entry("401, a bad key the provider echoes", openai.CodeAuth, "HTTP 401 Unauthorized", func() endpoint {
			var n int
			return statusServer(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: KEY","type":"invalid_request_error","code":"invalid_api_key"}}`, &n)
		}),
		Entry("403, a key that may not use the model", openai.CodeAuth, "HTTP 403 Forbidden", func() endpoint {
			var n int
			return statusServer(http.StatusForbidden, `{"error":{"message":"this key may not use m","type":"permission_error"}}`, &n)
		}),
		Entry("404, an unknown model", openai.CodeBadRequest, `check the model name ("m")`, func() endpoint {
			var n int
			return statusServer(http.StatusNotFound, `{"error":{"message":"The model m does not exist","type":"invalid_request_error","code":"model_not_found"}}`, &n)
		}),
		Entry("500 on every try", openai.CodeServer, "(gave up after 2 attempts)", func() endpoint {
			var n int
			e := statusServer(http.StatusInternalServerError, `{"error":{"message":"internal error","type":"server_error"}}`, &n)
			DeferCleanup(func() { Expect(n).To(Equal(4), "two prompts, each tried twice by the driver") })
			return e
		}),
	)

	It("keeps them with KeepLiveFailures: the fixture shows the failure and replays", func() {
		var n int
		e := statusServer(http.StatusUnauthorized, `{"error":{"message":"Incorrect API key provided: KEY"}}`, &n)
		_, err := recordLive(dir, e, func(o *recorder.Options) { o.KeepLiveFailures, o.ReplaceGolden = true, true })
		Expect(err).NotTo(HaveOccurred())
		after := tree(dir)
		Expect(after).NotTo(Equal(before))
		golden := after["codeword/"+fixture.GoldenFile]
		Expect(golden).To(ContainSubstring("AUTH"))
		Expect(golden).To(ContainSubstring("HTTP 401 Unauthorized"))
		Expect(after).NotTo(HaveKey("codeword/"+fixture.ChildLog(1)), "the root never got to fork")
		for name, content := range after {
			Expect(content).NotTo(ContainSubstring(liveKey), name)
		}
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded.Model).To(Equal("m"))
		// The logs replay; only the fork category's rule objects, as the
		// root never forked.
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
		Expect(err).NotTo(HaveOccurred())
		Expect(o.Drift).To(BeNil())
		Expect(o.Differences).To(BeEmpty())
		Expect(o.RunErrors).To(BeEmpty())
		Expect(o.Consumption).To(BeNil())
	})
})

// flaky answers the first request with a stream that fails mid-way with a
// retryable error frame, and every later one as fakeProvider does.
type flaky struct {
	fakeProvider
	once sync.Once
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	first := false
	f.once.Do(func() { first = true })
	if !first {
		f.fakeProvider.ServeHTTP(w, r)
		return
	}
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"O"}}]}`+"\n\n")
	fmt.Fprint(w, `data: {"error":{"message":"the server is overloaded, try again","type":"server_error"}}`+"\n\n")
}

var _ = Describe("a live failure the agent recovered from by retrying", func() {
	It("does not fail the recording, and the failed attempt is kept as agent behaviour", func() {
		dir := scaffold("fork/codeword")
		sc, err := scenario.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		sc.MaxAttempts = 2
		Expect(sc.Save(dir)).To(Succeed())
		provider := &flaky{}
		srv := httptest.NewServer(provider)
		DeferCleanup(srv.Close)

		res, err := recordLive(dir, endpoint{baseURL: srv.URL + "/v1"})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Calls).To(Equal(5), "four calls and the retried one")
		root, err := os.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(root)).To(ContainSubstring("the server is overloaded, try again"))
		replayPasses(dir)
	})
})

var _ = Describe("an authored failure in the playbook", func() {
	DescribeTable("is agent behaviour and records, whatever its code",
		func(code string) {
			dir := scaffold("fork/codeword")
			editPlaybook(dir, func(pb *playbook.Playbook) {
				pb.Sessions["root"][0] = &playbook.Turn{Text: "O", Error: &playbook.Error{Code: code, Message: "the authored failure"}}
			})
			opts, err := recorder.PlaybookOptions(dir, 0)
			Expect(err).NotTo(HaveOccurred())
			opts.Runtime = agent.Reference
			_, err = recorder.Record(context.Background(), dir, opts)
			Expect(err).NotTo(HaveOccurred())
			golden, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(golden)).To(ContainSubstring(code + ": the authored failure"))
			replayPasses(dir)
		},
		Entry("SERVER", "SERVER"),
		Entry("AUTH, a code a live recording refuses", "AUTH"),
	)
})

// editPlaybook rewrites dir/playbook.json through edit.
func editPlaybook(dir string, edit func(*playbook.Playbook)) {
	path := filepath.Join(dir, fixture.PlaybookFile)
	pb, err := playbook.Load(path)
	Expect(err).NotTo(HaveOccurred())
	edit(pb)
	b, err := json.MarshalIndent(pb, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, append(b, '\n'), 0o644)).To(Succeed())
}
