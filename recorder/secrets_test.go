package recorder_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/open"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// placement is where a live client puts the key: an environment variable
// the recording knows (given as a secret, as the CLI and -record do), a
// header, the base URL's query or its user info.
type placement struct {
	name   string
	source string // how a refusal names the key's source
	place  func(cfg *openai.Config, secrets map[string]string, key string)
}

func envPlacement(v string, sent bool) placement {
	return placement{v, v, func(cfg *openai.Config, secrets map[string]string, key string) {
		secrets[v] = key
		if sent {
			cfg.APIKey = key
		}
	}}
}

func headerPlacement(h string) placement {
	return placement{h + " header", "the " + h + " header", func(cfg *openai.Config, _ map[string]string, key string) {
		cfg.Header = http.Header{http.CanonicalHeaderKey(h): {key}}
	}}
}

var placements = []placement{
	envPlacement("AGENTSNAP_API_KEY", true), envPlacement("OPENAI_API_KEY", true), envPlacement("DEEPSEEK_API_KEY", true),
	envPlacement("ANTHROPIC_API_KEY", false), envPlacement("GEMINI_API_KEY", false), envPlacement("GOOGLE_API_KEY", false),
	{"Authorization: Bearer", "the bearer token in the Authorization header", func(cfg *openai.Config, _ map[string]string, key string) { cfg.APIKey = key }},
	headerPlacement("x-api-key"), headerPlacement("api-key"), headerPlacement("x-goog-api-key"),
	{"?key= in the base URL", "the key= query parameter of the base URL", func(cfg *openai.Config, _ map[string]string, key string) {
		cfg.BaseURL += "?key=" + url.QueryEscape(key)
	}},
	{"user info in the base URL", "the password in the user info of the base URL", func(cfg *openai.Config, _ map[string]string, key string) {
		cfg.BaseURL = strings.Replace(cfg.BaseURL, "http://", "http://leaker:"+key+"@", 1)
	}},
}

// A mode is how the recording runs: as it is, keeping live failures, or
// with a JSONL or SQLite side store.
type mode string

const (
	plain  mode = "plain"
	keep   mode = "--keep-live-failures"
	jsonlS mode = "jsonl side store"
	sqlS   mode = "sqlite side store"
)

// syncBuffer collects output written from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// leakOptions returns the options of a live recording from the endpoint
// at base with key placed by p, in mode m (side: the side store's path
// without extension), every line of output going to out.
func leakOptions(p placement, leak leaktest.Leak, m mode, base, key, side string, out *syncBuffer) recorder.Options {
	GinkgoHelper()
	cfg := openai.Config{
		BaseURL: base, Model: "m", MaxRetries: 1,
		Sleep:  func(context.Context, time.Duration) error { return nil },
		Logger: slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if leak == leaktest.NetError {
		cfg.HTTPClient = leaktest.Client()
	}
	secrets := map[string]string{}
	p.place(&cfg, secrets, key)
	d, err := openai.New(cfg)
	Expect(err).NotTo(HaveOccurred())
	opts := recorder.LiveOptions(d, openai.RedactURL(cfg.BaseURL), "m")
	opts.Runtime = agent.Reference
	opts.Secrets, opts.Progress, opts.By = secrets, out, "agentsnap test"
	opts.Logf = func(format string, args ...any) { fmt.Fprintf(out, format+"\n", args...) }
	opts.KeepLiveFailures = m == keep
	switch m {
	case jsonlS:
		opts.Store = func(ctx context.Context) (persistence.Store, error) { return open.Store(ctx, "jsonl:"+side) }
	case sqlS:
		opts.Store = func(ctx context.Context) (persistence.Store, error) { return open.Store(ctx, "sqlite:"+side+".db") }
	}
	return opts
}

// leakRecording records a scenario from an endpoint that leaks key the way
// leak says, with the key where p puts it, and checks that the key is
// nowhere — no file under the fixture's tree or the side store, no error,
// warning, progress or log line — and that the recording was refused
// exactly when the key would have been written.
func leakRecording(p placement, leak leaktest.Leak, m mode, n int) {
	key := fmt.Sprintf("k3y-%02d-%s-0123456789abcdefXYZ", n, strings.NewReplacer(" ", "", ":", "", "?", "", "=", "", "-", "").Replace(p.name))
	root := GinkgoT().TempDir()
	dir, err := leaktest.Scenario(root)
	Expect(err).NotTo(HaveOccurred())
	end := leaktest.New(leak, key, DeferCleanup)
	var out syncBuffer
	side := filepath.Join(GinkgoT().TempDir(), "side")
	opts := leakOptions(p, leak, m, end.URL+"/v1", key, side, &out)

	_, err = recorder.Record(context.Background(), dir, opts)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	traces, werr := leaktest.Traces(key, []string{root, filepath.Dir(side)}, msg, out.String())
	Expect(werr).NotTo(HaveOccurred())
	Expect(traces).To(BeEmpty(), "the key (or half of it) shows in these; the error: %s\noutput:\n%s", msg, out.String())

	switch {
	case leak.Streamed():
		Expect(err).To(MatchError(recorder.ErrSecret), "the recording would have held the key")
		Expect(msg).To(ContainSubstring("the value of "+p.source+" "), "the refusal names the source")
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
		if m == jsonlS || m == sqlS {
			Expect(msg).To(MatchRegexp(`on its way to the side store; nothing was kept|side store holds nothing of this recording`))
			Expect(sideSessions(m, side)).To(BeEmpty(), "a refused recording leaves nothing in the side store")
		}
	case leak.Fails() && m != keep:
		Expect(err).To(MatchError(recorder.ErrLiveFailure))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	default:
		Expect(err).NotTo(HaveOccurred(), "nothing the recording keeps holds the key")
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeARegularFile())
		if leak.Fails() {
			b, err := os.ReadFile(filepath.Join(dir, fixture.RootLog))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(ContainSubstring(`"kind":"error"`), "the failure is kept")
		}
	}
}

// sideSessions lists the sessions the side store holds.
func sideSessions(m mode, side string) []string {
	GinkgoHelper()
	spec := "jsonl:" + side
	if m == sqlS {
		spec = "sqlite:" + side + ".db"
		if _, err := os.Stat(side + ".db"); err != nil {
			return nil
		}
	}
	s, err := open.Store(context.Background(), spec)
	Expect(err).NotTo(HaveOccurred())
	defer s.Close()
	hs, err := s.List(context.Background())
	Expect(err).NotTo(HaveOccurred())
	var ids []string
	for _, h := range hs {
		ids = append(ids, h.ID)
	}
	return ids
}

func leakEntries() []TableEntry {
	var out []TableEntry
	n := 0
	for _, p := range placements {
		for _, leak := range leaktest.Leaks {
			for _, m := range []mode{plain, keep, jsonlS, sqlS} {
				// The side stores take every leak, with a key in the
				// environment, a header and the URL.
				if (m == jsonlS || m == sqlS) && p.name != "OPENAI_API_KEY" && p.name != "x-goog-api-key header" && p.name != "?key= in the base URL" {
					continue
				}
				n++
				out = append(out, Entry(fmt.Sprintf("%s, leaked in the %s, %s", p.name, leak, m), p, leak, m, n))
			}
		}
	}
	return out
}

var _ = Describe("a credential in every placement, against an endpoint that leaks it", Label("secrets"), func() {
	DescribeTable("never reaches a file, a side store, an error or a log line",
		leakRecording, leakEntries())
})
